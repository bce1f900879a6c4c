import type { Context } from "hono";
import type { z } from "zod";
import type { ScoredEventItem } from "../../../actors/scoring/mod.ts";
import type { scoredEventsQuerySchema } from "../../scoring/scored_events_api.ts";
import type { ScoredPage, ScoredPages } from "../../scoring/scored_pages.ts";
import { singleValuedQuery } from "../../http/validation.ts";
import { DEMO_HINT, EmptyState, Provenance } from "../kit/blocks.tsx";
import { count, fixed, percent, utc } from "../kit/format.ts";
import { Layout } from "../kit/layout.tsx";
import { sendPage } from "../kit/page_answer.ts";
import { htmlOf } from "../kit/render.ts";
import { eventPath } from "./event_cells.tsx";
import { MinerRows } from "./event_sections.tsx";
import { type FieldSpec, FilterForm } from "./filter_form.tsx";
import { dropEmptyParameters, searchOf, valuesOf } from "./query_string.ts";
import { Pager } from "./pager.tsx";

/** The parameters of `GET /v1/events/scored` the form has a field for: every one but the cursor. */
export type ScoredFormField = Exclude<keyof z.input<typeof scoredEventsQuerySchema>, "cursor">;

/** A field per parameter (typed over the schema's keys), in the order shown; "" leaves it out. */
export const SCORED_FIELDS: Readonly<Record<ScoredFormField, FieldSpec>> = {
  uid: { label: "Miner uid", input: { kind: "number", min: 0, max: 65_535, step: 1 } },
  minerHotkey: { label: "Or miner hotkey (SS58)", input: { kind: "text", maxLength: 64 } },
  miners: {
    label: "Miner rows per event (0..50)",
    input: { kind: "number", min: 0, max: 50, step: 1, placeholder: "10" },
  },
  limit: {
    label: "Events per page (1..25)",
    input: { kind: "number", min: 1, max: 25, step: 1, placeholder: "10" },
  },
};

/**
 * `GET /scored`: the scored events as `GET /v1/events/scored` lists them for the same query
 * string, read through the same pages (the default query's kept 60 s, with this HTML).
 */
export function scoredPage(pages: ScoredPages) {
  return async (c: Context): Promise<Response> => {
    const redirect = dropEmptyParameters(c);
    if (redirect) return redirect;
    const search = searchOf(c.req.url);
    const cached = search === "" ? pages.cachedDefault() : undefined;
    const entry = cached ?? await pages.read(singleValuedQuery(c.req.queries(), c.req.url));
    const render = () => htmlOf(<ScoredEventsPage page={entry.value} search={search} />);
    // Only the page without a query string is kept: another query string may ask for the same
    // (default) page, and its form shows the values it was asked with.
    const html = search !== "" ? await render() : entry.body("html") ?? entry.keep("html", await render());
    return sendPage(c, html);
  };
}

function ScoredEventsPage(props: { page: ScoredPage; search: string }) {
  const { page, search } = props;
  return (
    <Layout title="Scored events" path="/scored">
      <h1>Scored events</h1>
      <Provenance
        computedAt={page.meta.computedAt}
        note={`Resolved events the scoring job scored, newest resolution first; scorer ${page.meta.scorerVersion}.`}
      />
      <FilterForm action="/scored" id="scored" fields={SCORED_FIELDS} values={valuesOf(search)} />
      {page.items.length === 0 ? <NoScoredEvents filtered={search !== ""} /> : ""}
      {page.items.map((item) => <ScoredEventSection item={item} />)}
      <Pager path="/scored" search={search} nextCursor={page.nextCursor} />
      <p>
        The same page from the API: <a href={`/v1/events/scored${search}`}>JSON</a> (docs/scoring.md).
      </p>
    </Layout>
  );
}

function ScoredEventSection(props: { item: ScoredEventItem }) {
  const { item } = props;
  const { stats } = item;
  return (
    <section class="scored-event" aria-labelledby={`scored-${item.eventId}`}>
      <h2 id={`scored-${item.eventId}`}>
        <a href={eventPath(item.eventId)}>{item.question}</a>
      </h2>
      <p>
        Resolved <time datetime={item.resolvedAt}>{utc(item.resolvedAt)}</time>: {item.winningOutcome.name}
        {" "}
        won (market price at admission {fixed(item.marketPWinAtAdmission)}). {count(stats.scored)} scored,
        {" "}
        {count(stats.valid)} valid; mean Brier {fixed(stats.meanBrier)}; named the winner{" "}
        {percent(stats.calledRate)}
        ; best uid {stats.bestUid ?? "—"}.
      </p>
      <MinerRows scored={item} />
    </section>
  );
}

function NoScoredEvents(props: { filtered: boolean }) {
  if (props.filtered) return <EmptyState why="No scored event matches these filters." />;
  return (
    <EmptyState
      why="No event is scored yet: an event is scored once it resolves, at the scoring job's next run, when miners predicted it."
      next={DEMO_HINT}
    />
  );
}
