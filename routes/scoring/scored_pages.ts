import { type Clock, isoAt } from "../../actors/kernel/mod.ts";
import {
  type MinerFilter,
  type ScoredEventItem,
  type ScoredEventsDeps,
  scoredEventsPage,
  SCORER_VERSION,
} from "../../actors/scoring/mod.ts";
import type { MetagraphView } from "../../actors/validators/mod.ts";
import type { ScoredEventPosition } from "../../storage/score_store.ts";
import { CursorCodec } from "../http/cursor.ts";
import { type Rendered, RenderedCache } from "../http/rendered_cache.ts";
import { parseOrThrow } from "../http/validation.ts";
import { type ScoredEventsParams, scoredEventsQuerySchema } from "./scored_events_api.ts";

/** How long the default query's page is served (docs/scoring.md, "GET /v1/events/scored"). */
export const DEFAULT_PAGE_CACHE_MS = 60_000;
const DEFAULT_KEY = "default";

export interface ScoredPagesDeps extends ScoredEventsDeps {
  /** This instance's metagraph view: which hotkey holds a uid now. */
  metagraph: MetagraphView;
  cursors: CursorCodec;
  clock: Clock;
}

/** One page of `GET /v1/events/scored`. */
export interface ScoredPage {
  params: ScoredEventsParams;
  items: ScoredEventItem[];
  nextCursor: string | null;
  meta: { computedAt: string; scorerVersion: string };
}

interface Cursor {
  r: number;
  e: string;
}

/**
 * The pages of the scored events: `GET /v1/events/scored` and the `/scored` web page read through
 * here. The default query's page (no miner, no cursor, default sizes) is kept 60 s with its
 * renderings; any other query is read from the score store each time.
 */
export class ScoredPages {
  readonly #deps: ScoredPagesDeps;
  readonly #cache: RenderedCache<ScoredPage>;

  constructor(deps: ScoredPagesDeps) {
    this.#deps = deps;
    this.#cache = new RenderedCache({
      ttlMs: DEFAULT_PAGE_CACHE_MS,
      maxBytes: 16 * 2 ** 20,
      clock: deps.clock,
    });
  }

  /** The default query's page while it is cached: a request without a query string reads nothing else. */
  cachedDefault(): Rendered<ScoredPage> | undefined {
    return this.#cache.get(DEFAULT_KEY);
  }

  /** The page `query` (one value per name) asks for; 400 naming the fields when it is invalid. */
  async read(query: Record<string, string>): Promise<Rendered<ScoredPage>> {
    const params = parseOrThrow(scoredEventsQuerySchema, query, "query parameters");
    const isDefault = params.limit === 10 && params.miners === 10 && params.uid === undefined &&
      params.minerHotkey === undefined && params.cursor === undefined;
    if (!isDefault) return this.#cache.uncached(await this.#readPage(params));
    return this.#cache.get(DEFAULT_KEY) ?? this.#cache.add(DEFAULT_KEY, await this.#readPage(params));
  }

  /** The miner a query names: `minerHotkey`, or the hotkey holding `uid` now (null: nobody does). */
  #minerOf(params: ScoredEventsParams): MinerFilter | null | undefined {
    if (params.minerHotkey !== undefined) return { hotkey: params.minerHotkey };
    if (params.uid === undefined) return undefined;
    const neuron = this.#deps.metagraph.metagraph?.neurons.find((n) => n.uid === params.uid);
    return neuron ? { hotkey: neuron.hotkey, uid: neuron.uid } : null;
  }

  async #readPage(params: ScoredEventsParams): Promise<ScoredPage> {
    const deps = this.#deps;
    const meta = { computedAt: isoAt(deps.clock()), scorerVersion: SCORER_VERSION };
    const miner = this.#minerOf(params);
    const fingerprint = CursorCodec.fingerprint({
      miners: params.miners,
      limit: params.limit,
      uid: params.uid ?? null,
      minerHotkey: params.minerHotkey ?? null,
      // A uid's cursor is bound to the hotkey holding it: after a re-registration it is refused.
      holder: params.uid === undefined ? null : miner?.hotkey ?? null,
    });
    const after = params.cursor === undefined
      ? undefined
      : positionOf(deps.cursors.decode<Cursor>(fingerprint, params.cursor));
    if (miner === null) return { params, items: [], nextCursor: null, meta };
    const page = await scoredEventsPage(deps, {
      limit: params.limit,
      miners: params.miners,
      ...(miner ? { miner } : {}),
      ...(after ? { after } : {}),
    });
    const nextCursor = page.next
      ? deps.cursors.encode<Cursor>(fingerprint, { r: page.next.resolvedAtMs, e: page.next.eventId })
      : null;
    return { params, items: page.items, nextCursor, meta };
  }
}

function positionOf(cursor: Cursor): ScoredEventPosition {
  return { resolvedAtMs: cursor.r, eventId: cursor.e };
}
