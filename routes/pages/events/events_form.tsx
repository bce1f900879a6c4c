import type { z } from "zod";
import type { EventsParams, eventsQuerySchema } from "../../catalog/events_query.ts";
import { type FieldSpec, FilterForm } from "./filter_form.tsx";

/**
 * The parameters of `GET /v1/events` the form has a field for: every one but the cursor (the
 * pager's links carry it).
 */
export type EventsFormField = Exclude<keyof z.input<typeof eventsQuerySchema>, "cursor">;

const STATUS_LABELS: Record<NonNullable<EventsParams["status"]>, string> = {
  unresolved: "Unresolved",
  resolved: "Resolved",
  voided: "Voided",
};

const SORT_LABELS: Record<EventsParams["sortBy"], string> = {
  endDate: "End date (soonest first)",
  startDate: "Start date (earliest first)",
  volume: "Volume (largest first)",
  liquidity: "Liquidity (largest first)",
  resolvedAt: "Resolution (earliest first)",
};

const price = { kind: "number", min: 0, max: 1, step: "any" } as const;
const amount = { kind: "number", step: "any", placeholder: "USD" } as const;

/**
 * A field per parameter (typed over the schema's keys: a new filter without a field does not
 * compile), in the order shown; "" is the parameter left out.
 */
export const EVENTS_FIELDS: Readonly<Record<EventsFormField, FieldSpec>> = {
  q: { label: "Question or description contains", input: { kind: "text", maxLength: 200 } },
  status: {
    label: "Status",
    input: {
      kind: "select",
      options: [["", "Any"], ...entries(STATUS_LABELS)],
    },
  },
  hasResolution: {
    label: "Has a resolution",
    input: { kind: "select", options: [["", "Either"], ["1", "Yes: resolved"], ["0", "No: unresolved"]] },
  },
  includeEnded: {
    label: "Ended markets",
    input: {
      kind: "select",
      options: [["", "Default: live only"], ["0", "Live only"], ["1", "Include ended"]],
    },
  },
  sortBy: {
    label: "Sort by",
    input: { kind: "select", options: [["", "Default: end date"], ...entries(SORT_LABELS)] },
  },
  resolvedSince: {
    label: "Resolved since (ISO 8601; sort by resolution)",
    input: { kind: "text", placeholder: "2026-11-01T00:00:00Z" },
  },
  min_price: { label: "Every price at least (0..1)", input: price },
  max_price: { label: "Every price at most (0..1)", input: price },
  volume: { label: "Volume at admission at least", input: amount },
  liquidity: { label: "Liquidity at admission at least", input: amount },
  tagId: { label: "Tag id", input: { kind: "number", step: 1 } },
  source: { label: "Source", input: { kind: "text", placeholder: "polymarket", maxLength: 100 } },
  limit: {
    label: "Events per page (1..200)",
    input: { kind: "number", min: 1, max: 200, step: 1, placeholder: "50" },
  },
  format: {
    label: "Format of the API link",
    input: { kind: "select", options: [["", "Default: JSON"], ["json", "JSON"], ["csv", "CSV"]] },
  },
};

/** The catalog's filter form, filled with the values the page was asked with. */
export function EventsForm(props: { values: Readonly<Record<string, string>> }) {
  return <FilterForm action="/events" id="events" fields={EVENTS_FIELDS} values={props.values} />;
}

function entries<K extends string>(labels: Record<K, string>): [string, string][] {
  return Object.entries<string>(labels);
}
