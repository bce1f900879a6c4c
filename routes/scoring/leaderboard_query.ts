import type { Context } from "hono";
import { LRUCache } from "lru-cache";
import { ServiceError } from "../../actors/kernel/mod.ts";
import {
  defaultOrderOf,
  type Leaderboard,
  type LeaderboardNeuron,
  type SortName,
  sortNeurons,
  type SortOrder,
} from "../../actors/scoring/mod.ts";
import { parseOrThrow, singleValuedQuery } from "../http/validation.ts";
import { leaderboardQuerySchema } from "./leaderboard_api.ts";

/** A validated leaderboard query with its order worked out: one view of the board. */
export interface LeaderboardQuery {
  limit: number;
  sort: SortName;
  order: SortOrder;
  format: "json" | "csv";
}

/**
 * The query of `GET /v1/leaderboard` and of `/leaderboard` (one schema: a bad parameter is named
 * the same on both), with `defaults` for parameters the request leaves out (the page shows the
 * whole board). 404 for another subnet than `netuid`.
 */
export function parseLeaderboardQuery(
  c: Context,
  netuid: number,
  defaults: Record<string, string> = {},
): LeaderboardQuery {
  const given = singleValuedQuery(c.req.queries(), c.req.url);
  const query = parseOrThrow(leaderboardQuerySchema, { ...defaults, ...given }, "query parameters");
  if (query.netuid !== undefined && query.netuid !== netuid) {
    throw new ServiceError(
      "not_found",
      `No leaderboard for netuid ${query.netuid}: this service serves ${netuid}`,
    );
  }
  const { limit, sort, format } = query;
  return { limit, sort, format, order: query.order ?? defaultOrderOf(sort) };
}

/** The query string of a view (every parameter given, so it names the same view anywhere). */
export function leaderboardSearch(query: Omit<LeaderboardQuery, "format">, format?: "csv"): string {
  const csv = format === undefined ? "" : `&format=${format}`;
  return `?sort=${query.sort}&order=${query.order}&limit=${query.limit}${csv}`;
}

/** Largest text kept per board (bodies and pages of its views). */
const BYTES_PER_BOARD = 16 * 2 ** 20;

/**
 * Rendered views of each board (JSON and CSV bodies, pages), built once per (board, key) and kept
 * while the board is the view's (a board is dropped, with its views, once a newer one replaced
 * it); bounded in bytes per board.
 */
export class BoardViews {
  readonly #texts = new WeakMap<Leaderboard, LRUCache<string, string>>();
  readonly #sorted = new WeakMap<Leaderboard, Map<string, LeaderboardNeuron[]>>();

  /** The text of `key` for `board`, rendered by `render` the first time. */
  async text(board: Leaderboard, key: string, render: () => string | Promise<string>): Promise<string> {
    let texts = this.#texts.get(board);
    if (!texts) {
      texts = new LRUCache({ maxSize: BYTES_PER_BOARD, sizeCalculation: (text) => text.length * 2 + 64 });
      this.#texts.set(board, texts);
    }
    let text = texts.get(key);
    if (text === undefined) {
      text = await render();
      texts.set(key, text);
    }
    return text;
  }

  /** The board's rows of a view: sorted (once per board and order), then the first `limit`. */
  rows(board: Leaderboard, query: Omit<LeaderboardQuery, "format">): LeaderboardNeuron[] {
    let sorted = this.#sorted.get(board);
    if (!sorted) this.#sorted.set(board, sorted = new Map());
    const key = `${query.sort}/${query.order}`;
    let rows = sorted.get(key);
    if (!rows) sorted.set(key, rows = sortNeurons(board.neurons, query.sort, query.order));
    return rows.slice(0, query.limit);
  }
}
