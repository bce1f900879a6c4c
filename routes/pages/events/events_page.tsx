import type { Context } from "hono";
import type { CatalogPage, CatalogPages } from "../../catalog/catalog_pages.ts";
import { singleValuedQuery } from "../../http/validation.ts";
import { DEMO_HINT, EmptyState, Provenance } from "../kit/blocks.tsx";
import { count } from "../kit/format.ts";
import { Layout } from "../kit/layout.tsx";
import { sendPage } from "../kit/page_answer.ts";
import { htmlOf } from "../kit/render.ts";
import { EventsForm } from "./events_form.tsx";
import { EventsTable } from "./events_table.tsx";
import { dropEmptyParameters, searchOf, valuesOf, withParameter } from "./query_string.ts";
import { Pager } from "./pager.tsx";

/**
 * `GET /events`: the catalog as `GET /v1/events` lists it for the same query string, read through
 * the same page cache (so the page and the JSON route list the same events), with its filters as
 * a form. The HTML is kept with the page it shows.
 */
export function eventsPage(pages: CatalogPages) {
  return async (c: Context): Promise<Response> => {
    const redirect = dropEmptyParameters(c);
    if (redirect) return redirect;
    const search = searchOf(c.req.url);
    const entry = pages.read(search, () => singleValuedQuery(c.req.queries(), c.req.url));
    const html = entry.body("html") ??
      entry.keep("html", await htmlOf(<EventsPage page={entry.value} search={search} />));
    return sendPage(c, html);
  };
}

/** Parameters that choose how events are listed, not which. */
const NOT_FILTERS = new Set(["cursor", "limit", "sortBy", "format"]);

function EventsPage(props: { page: CatalogPage; search: string }) {
  const { page, search } = props;
  const filtered = Object.keys(valuesOf(search)).some((name) => !NOT_FILTERS.has(name));
  return (
    <Layout title="Events" path="/events">
      <h1>Events</h1>
      <Provenance
        computedAt={page.snapshot.computedAtMs}
        note="Live events only, unless ended markets are included or a settled status is asked for."
      />
      <EventsForm values={valuesOf(search)} />
      <h2>{count(page.items.length)} events on this page</h2>
      {page.items.length > 0 ? <EventsTable items={page.items} /> : <NoEvents filtered={filtered} />}
      <Pager path="/events" search={search} nextCursor={page.nextCursor} />
      <ApiLinks search={search} csv={page.params.format === "csv"} />
    </Layout>
  );
}

function NoEvents(props: { filtered: boolean }) {
  if (props.filtered) {
    return <EmptyState why="No event matches these filters." next="Clear a filter to see more." />;
  }
  return (
    <EmptyState
      why="The catalog has no live event yet: the ingestion job fills it from Polymarket, or from the shipped sample markets when Polymarket cannot be reached."
      next={DEMO_HINT}
    />
  );
}

/** The same page from `GET /v1/events`: in the format asked for (`format`), then in the other. */
function ApiLinks(props: { search: string; csv: boolean }) {
  const other = withParameter(props.search, "format", props.csv ? "json" : "csv");
  return (
    <p>
      The same page from the API: <a href={`/v1/events${props.search}`}>{props.csv ? "CSV" : "JSON"}</a>,{" "}
      <a href={`/v1/events${other}`}>{props.csv ? "JSON" : "CSV"}</a> (docs/events.md).
    </p>
  );
}
