import { type Clock, DAY_MS, isoAt, ServiceError } from "../../actors/kernel/mod.ts";
import type { CatalogView, IndexedEvent } from "../../actors/catalog/mod.ts";
import { historyPoints } from "../../actors/predictions/mod.ts";
import { scoredEvent, type ScoredEventDeps, type ScoredEventItem } from "../../actors/scoring/mod.ts";
import type { ForecastHistoryStore } from "../../storage/forecast_history_store.ts";
import { type Rendered, RenderedCache } from "../http/rendered_cache.ts";
import { EVENT_ID } from "../http/path_ids.ts";

/** How far back an event's history goes: the 7 days before its resolution (an open event's: before now). */
export const DETAIL_HISTORY_DAYS = 7;

export interface EventDetailsDeps extends ScoredEventDeps {
  catalog: CatalogView;
  history: Pick<ForecastHistoryStore, "listPoints">;
  clock: Clock;
  /** How long an event's detail is reused for the same snapshot; 0 reads every time. */
  cacheMs: number;
}

/** The market's prices at one hour. */
export interface MarketPoint {
  at: string;
  prices: Record<string, number>;
}

/** The customer consensus at one hour (null: nobody contributed). */
export interface ConsensusPoint {
  at: string;
  forecast: Record<string, number> | null;
  contributors: number;
}

/** What `GET /v1/events/{eventId}` and the `/events/{id}` page show of one event. */
export interface EventDetail {
  event: IndexedEvent;
  /** When the catalog snapshot the event was read from was built. */
  computedAtMs: number;
  /** True while the event is unresolved: its consensus and the miners' forecasts are not public. */
  open: boolean;
  history: {
    interval: "1h";
    from: string;
    to: string;
    market: MarketPoint[];
    /** Null while the event is open. */
    consensus: ConsensusPoint[] | null;
  };
  /** The scoring of the event once resolved and scored; null before (and always while open). */
  scored: ScoredEventItem | null;
}

const CACHE_BYTES = 16 * 2 ** 20;

/**
 * One event of the catalog with its hourly market price history and, only once it is settled,
 * its consensus history and its miners' scored forecasts (while open they are the paid product).
 * Kept `cacheMs` per catalog snapshot with its renderings (the JSON body, the page).
 */
export class EventDetails {
  readonly #deps: EventDetailsDeps;
  readonly #cache: RenderedCache<EventDetail>;

  constructor(deps: EventDetailsDeps) {
    this.#deps = deps;
    this.#cache = new RenderedCache({ ttlMs: deps.cacheMs, maxBytes: CACHE_BYTES, clock: deps.clock });
  }

  /** The detail of `eventId`; 404 when the catalog has no such event. */
  async read(eventId: string): Promise<Rendered<EventDetail>> {
    const snapshot = this.#deps.catalog.current();
    const item = EVENT_ID.test(eventId) ? snapshot.byId(eventId) : undefined;
    if (!item) throw new ServiceError("not_found", `Event not found: ${eventId}`);
    const key = `${snapshot.id}|${eventId}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    return this.#cache.add(key, await this.#readDetail(item, snapshot.computedAtMs));
  }

  async #readDetail(item: IndexedEvent, computedAtMs: number): Promise<EventDetail> {
    const { event } = item;
    const open = event.resolution.resolutionStatus === "unresolved";
    const toMs = open ? this.#deps.clock() : item.resolvedMs ?? this.#deps.clock();
    const fromMs = toMs - DETAIL_HISTORY_DAYS * DAY_MS;
    const stored = await this.#deps.history.listPoints(event.id, { fromMs, toMs });
    const points = historyPoints(stored, "1h", event.outcomes.map((outcome) => outcome.outcomeId));
    return {
      event: item,
      computedAtMs,
      open,
      history: {
        interval: "1h",
        from: isoAt(fromMs),
        to: isoAt(toMs),
        market: points.map(({ at, market }) => ({ at, prices: market })),
        consensus: open
          ? null
          : points.map(({ at, forecast, contributors }) => ({ at, forecast, contributors })),
      },
      scored: open ? null : await scoredEvent(this.#deps, event.id),
    };
  }
}
