/**
 * `deno task score --from-service BASE`: builds scorer v1's input (the `input` of
 * `tests/scoring/golden/scoring-v1.json`) from a running service, the way a validator checks the board before
 * it sets weights:
 *
 * - registrations (`hotkey`, `uid`, `firstSeenAt`), `computedAt`, `windowDays` and the payout
 *   inputs from `GET /v1/leaderboard?limit=256` (the whole board);
 * - every row of the signed feed `GET /v1/validators/scored-predictions` (all pages), signed with
 *   the validator's key;
 * - the feed's events (outcomes, `endDate`, prices at admission) from
 *   `GET /v1/events?status=resolved&sortBy=resolvedAt&resolvedSince=…` (all pages), under the
 *   resolution the feed's rows were scored against.
 *
 * Every answer is checked against the route's zod schema; a failure is a `ServiceReadError` whose
 * message says which request failed and why.
 */
import { z } from "zod";
import { parseScorerInput, type ScorerInput, type ScorerPrediction } from "../../actors/scoring/mod.ts";
import { type Signer, signRequest } from "../../actors/validators/mod.ts";
import { LeaderboardSchema } from "../../routes/scoring/leaderboard_api.ts";
import { ScoredPredictionPage } from "../../routes/scoring/scored_predictions_api.ts";
import { EventPage } from "../../routes/catalog/events_api.ts";
import { DAY_MS } from "../../actors/kernel/mod.ts";

/** The largest page each list route serves. */
const FEED_LIMIT = 200;
const EVENTS_LIMIT = 200;
/** A subnet has at most 256 uids: the whole board in one page. */
const BOARD_LIMIT = 256;
const MAX_DAYS = 365;

/** The board's schema, its window end checked as an instant (the route documents it as one). */
const BoardSchema = LeaderboardSchema.extend({
  scoringMeta: LeaderboardSchema.shape.scoringMeta.extend({
    computedAt: z.iso.datetime({ offset: true }),
    windowDays: z.number().positive(),
  }),
});

type Leaderboard = z.infer<typeof BoardSchema>;
type FeedRow = z.infer<typeof ScoredPredictionPage>["items"][number];
type CatalogEvent = z.infer<typeof EventPage>["items"][number];

/** A request to the service failed, or its answer is not what the route documents. */
export class ServiceReadError extends Error {
  override readonly name = "ServiceReadError";
}

export interface FromServiceOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8000`. */
  base: string;
  /** The validator key that signs the feed requests. */
  signer: Signer;
  /** Unix epoch milliseconds: the signatures' timestamps and the feed window's end. */
  nowMs: () => number;
  fetch?: typeof fetch;
}

/** What was read: the scorer input, and notes worth telling the user (stderr). */
export interface ServiceInput {
  input: ScorerInput;
  notes: string[];
}

const HINTS: Record<number, string> = {
  401: "the signature was refused: check FGW_SIGNING_SECRET and this machine's clock",
  403: "the key's hotkey must be in the metagraph with a validator permit (and enough stake)",
  503: "the service's metagraph is stale or unavailable; try again after its next sync",
};

async function errorSummary(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = body.error ?? {};
    if (typeof code === "string") return `${code}${typeof message === "string" ? `: ${message}` : ""}`;
  } catch {
    // not a JSON error body: show its start
  }
  return text.slice(0, 200);
}

class ServiceClient {
  readonly #options: FromServiceOptions;
  readonly #base: URL;

  constructor(options: FromServiceOptions) {
    this.#options = options;
    try {
      this.#base = new URL(options.base.endsWith("/") ? options.base : `${options.base}/`);
    } catch {
      throw new ServiceReadError(`Invalid service URL ${JSON.stringify(options.base)}`);
    }
    if (this.#base.protocol !== "http:" && this.#base.protocol !== "https:") {
      throw new ServiceReadError(`Invalid service URL ${options.base}: expected http(s)://`);
    }
  }

  /** GETs `path` (relative to the base) and returns its body checked against `schema`. */
  async get<S extends z.ZodType>(path: string, query: Record<string, string>, schema: S, signed = false) {
    const url = new URL(path.replace(/^\//, ""), this.#base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const what = `GET ${url.pathname}${url.search}`;
    const headers = signed
      ? signRequest(this.#options.signer, { method: "GET", url: url.toString() }, {
        role: "validator",
        nowMs: this.#options.nowMs(),
      })
      : {};
    let response: Response;
    try {
      response = await (this.#options.fetch ?? fetch)(url, { headers });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ServiceReadError(`Cannot reach the service at ${this.#base.origin} (${what}): ${reason}`);
    }
    if (!response.ok) {
      const hint = HINTS[response.status];
      const summary = await errorSummary(response);
      throw new ServiceReadError(`${what}: HTTP ${response.status} ${summary}${hint ? ` (${hint})` : ""}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new ServiceReadError(`${what}: the answer is not JSON`);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 5).map((issue) =>
        `${issue.path.map(String).join(".") || "(body)"}: ${issue.message}`
      );
      throw new ServiceReadError(`${what}: unexpected answer: ${problems.join("; ")}`);
    }
    return parsed.data as z.infer<S>;
  }

  /** Every item of a keyset-paged list, following `nextCursor` to the end. */
  async all<T>(
    path: string,
    query: Record<string, string>,
    page: (query: Record<string, string>) => Promise<{ items: T[]; nextCursor: string | null }>,
  ): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const answer: { items: T[]; nextCursor: string | null } = await page(
        cursor === null ? query : { ...query, cursor },
      );
      items.push(...answer.items);
      cursor = answer.nextCursor;
      if (cursor !== null && seen.has(cursor)) {
        throw new ServiceReadError(`GET ${path}: the service repeated a cursor`);
      }
      if (cursor !== null) seen.add(cursor);
    } while (cursor !== null);
    return items;
  }
}

async function readBoard(client: ServiceClient): Promise<Leaderboard> {
  const board = await client.get("/v1/leaderboard", { limit: String(BOARD_LIMIT) }, BoardSchema);
  if (board.count !== board.neurons.length) {
    throw new ServiceReadError(
      `GET /v1/leaderboard: ${board.count} miners but ${board.neurons.length} rows (more than ${BOARD_LIMIT})`,
    );
  }
  if (board.count === 0 && board.stale) {
    throw new ServiceReadError(
      "The leaderboard is empty and stale: there is nothing to score. Either the service's metagraph " +
        "has not synced yet, or no hotkey of it is registered to an organisation (the board lists only " +
        "registered miners), or its prices are stale. The board is refreshed within a minute of a change.",
    );
  }
  return board;
}

/** The feed's window in whole days: it must reach back past the board's window start. */
export function feedDays(board: Pick<Leaderboard, "scoringMeta">, nowMs: number): number {
  const start = Date.parse(board.scoringMeta.computedAt) - board.scoringMeta.windowDays * DAY_MS;
  return Math.min(MAX_DAYS, Math.max(1, Math.ceil((nowMs - start) / DAY_MS) + 1));
}

function readFeed(client: ServiceClient, days: number): Promise<FeedRow[]> {
  const path = "/v1/validators/scored-predictions";
  const query = { days: String(days), limit: String(FEED_LIMIT) };
  return client.all(path, query, (q) => client.get(path, q, ScoredPredictionPage, true));
}

function readResolvedEvents(client: ServiceClient, sinceMs: number): Promise<CatalogEvent[]> {
  const path = "/v1/events";
  const query = {
    status: "resolved",
    sortBy: "resolvedAt",
    resolvedSince: new Date(sinceMs).toISOString(),
    limit: String(EVENTS_LIMIT),
  };
  return client.all(path, query, (q) => client.get(path, q, EventPage));
}

/** A feed row as the scorer reads it: the agent's own flag, never the verdict at scoring. */
export function scorerPredictionOfRow(row: FeedRow): ScorerPrediction {
  return {
    agentPredictionId: row.agentPredictionId,
    eventId: row.marketId,
    minerHotkey: row.minerHotkey,
    minerUid: row.minerUid,
    predictedAt: row.predictedAt,
    predictedOutcomeId: row.predictedOutcomeId,
    confidence: row.confidence,
    outcomeProbabilities: row.outcomeProbabilities,
    outcomePricesAtPrediction: row.outcomePricesAtPrediction,
    predictionIsInvalid: row.predictionValidation.reasons.includes("agent_reported_invalid"),
  };
}

/** The scored settlement of each event of the feed (every row of an event must agree). */
function settlements(
  rows: readonly FeedRow[],
): Map<string, { winningOutcomeId: string; resolvedAt: string }> {
  const byEvent = new Map<string, { winningOutcomeId: string; resolvedAt: string }>();
  for (const row of rows) {
    if (row.resolutionStatus !== "resolved" || row.resolvedOutcomeId === null) {
      throw new ServiceReadError(`Feed row ${row.agentPredictionId} is not of a resolved event`);
    }
    const settlement = { winningOutcomeId: row.resolvedOutcomeId, resolvedAt: row.resolvedAt };
    const known = byEvent.get(row.marketId);
    if (known === undefined) byEvent.set(row.marketId, settlement);
    else if (
      known.winningOutcomeId !== settlement.winningOutcomeId || known.resolvedAt !== settlement.resolvedAt
    ) {
      throw new ServiceReadError(`Feed rows of event ${row.marketId} disagree on its resolution`);
    }
  }
  return byEvent;
}

/** The scorer input of a board, the feed's rows and the catalog's resolved events (pure). */
export function scorerInputOf(
  board: Leaderboard,
  rows: readonly FeedRow[],
  catalog: readonly CatalogEvent[],
): ServiceInput {
  const notes: string[] = [];
  const byId = new Map(catalog.map((event) => [event.id, event]));
  const events = [...settlements(rows)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(
    ([id, settlement]) => {
      const event = byId.get(id);
      if (event === undefined) {
        throw new ServiceReadError(`Event ${id} of the feed is not among the resolved events of /v1/events`);
      }
      return {
        id,
        outcomes: event.outcomes,
        endDate: event.endDate,
        outcomePricesAtAdmission: event.outcomePricesAtAdmission,
        resolution: { resolutionStatus: "resolved" as const, ...settlement },
      };
    },
  );
  const { prices, scoringMeta } = board;
  if (prices.alphaUsd === null || scoringMeta.minerAlphaPerDay === null) {
    notes.push("The service has no prices yet: alpha and USD payouts are computed with 0 prices.");
  }
  const input = parseScorerInput({
    computedAt: scoringMeta.computedAt,
    windowDays: scoringMeta.windowDays,
    events,
    predictions: rows.map(scorerPredictionOfRow),
    registrations: board.neurons.map(({ hotkey, uid, firstSeenAt }) => ({ hotkey, uid, firstSeenAt })),
    payout: {
      minerAlphaPerDay: scoringMeta.minerAlphaPerDay ?? 0,
      forecastingWeightShare: scoringMeta.forecastingWeightShare,
      alphaUsd: prices.alphaUsd ?? 0,
    },
  });
  return { input, notes };
}

/** Reads the board, the feed and the events from the service and builds the scorer input. */
export async function readScorerInput(options: FromServiceOptions): Promise<ServiceInput> {
  const client = new ServiceClient(options);
  const board = await readBoard(client);
  const nowMs = options.nowMs();
  const days = feedDays(board, nowMs);
  const rows = await readFeed(client, days);
  const catalog = rows.length === 0 ? [] : await readResolvedEvents(client, nowMs - days * DAY_MS);
  return scorerInputOf(board, rows, catalog);
}
