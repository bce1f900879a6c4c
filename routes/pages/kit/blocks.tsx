import type { Child } from "hono/jsx";
import { utc } from "./format.ts";

/**
 * When the page's figures were computed and over which window: every page with figures says so
 * under its heading.
 */
export function Provenance(props: { computedAt: string | number | null; window?: string; note?: Child }) {
  return (
    <p class="provenance">
      Figures computed {props.computedAt === null
        ? "— not yet"
        : <time datetime={iso(props.computedAt)}>{utc(props.computedAt)}</time>}
      {props.window ? `, over ${props.window}` : ""}.{props.note ? <>{" "}{props.note}</> : ""}
    </p>
  );
}

/**
 * A wide table in a scrolling container the keyboard can reach (at phone width the table scrolls
 * sideways inside it): `label` names the region for screen readers.
 */
export function TableScroll(props: { label: string; children?: Child }) {
  return (
    <div class="table-scroll" role="region" aria-label={props.label} tabindex={0}>
      {props.children}
    </div>
  );
}

/** An empty state: why there is nothing to show, and what to run to see something. */
export function EmptyState(props: { why: Child; next?: Child }) {
  return (
    <div class="empty">
      <p>{props.why}</p>
      {props.next ? <p>{props.next}</p> : ""}
    </div>
  );
}

/** The empty states' usual advice: the demo fills every page in a few minutes. */
export const DEMO_HINT = (
  <>
    To see it populated, run <code>npx -y deno@2.9.6 task demo</code> (docs/getting_started.md, "Demo").
  </>
);

/** A banner for figures that may be out of date (e.g. the metagraph or the prices are stale). */
export function Banner(props: { children?: Child }) {
  return <p class="banner" role="status">{props.children}</p>;
}

function iso(at: string | number): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}
