import { withParameter } from "./query_string.ts";

/**
 * Keyset pages of a list page: "First page" once past it, "Next page" with the JSON route's
 * `nextCursor`; every other parameter is kept as asked. Nothing on a single page.
 */
export function Pager(props: { path: string; search: string; nextCursor: string | null }) {
  const { path, search, nextCursor } = props;
  const isFirst = !new URLSearchParams(search).has("cursor");
  if (isFirst && nextCursor === null) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {isFirst ? "" : <a href={`${path}${withParameter(search, "cursor", null)}`}>First page</a>}
      {nextCursor === null
        ? ""
        : <a href={`${path}${withParameter(search, "cursor", nextCursor)}`} rel="next">Next page</a>}
    </nav>
  );
}
