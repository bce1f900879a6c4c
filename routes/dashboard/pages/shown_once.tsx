import type { Child } from "hono/jsx";
import { Banner } from "../../pages/kit/blocks.tsx";

/**
 * A value shown to its reader this once (a new key's secret, an invitation link): its heading
 * (`id` names it), what to do with it in a banner, then the value itself in `<code id={codeId}>`.
 */
export function ShownOnce(
  props: { id: string; heading: Child; codeId: string; value: string; children?: Child },
) {
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id}>{props.heading}</h2>
      <Banner>{props.children}</Banner>
      <p>
        <code id={props.codeId}>{props.value}</code>
      </p>
    </section>
  );
}
