import { emptyScoring } from "../support/scoring_rows.ts";
/**
 * A local fake of the three routes `deno task score --from-service` reads, speaking their wire
 * format (routes/scoring/*_api.ts, routes/catalog/events_api.ts): it serves a scorer input's world
 * as the leaderboard, the signed scored-predictions feed and the resolved events, in small pages.
 * Failures can be set per route.
 */
import { type ScorerInput, scoreV1 } from "../../actors/scoring/mod.ts";

export interface FakeScoringServiceOptions {
  /** Items per page of the feed and of the events, whatever `limit` asks (forces paging). */
  pageSize?: number;
  /** Answers per path (`/v1/leaderboard`, …) instead of the world's. */
  override?: Record<string, () => Response>;
  /** Event ids left out of `/v1/events`. */
  hideEvents?: string[];
}

const SCORING = emptyScoring(0);

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** An error answer in the shape of docs/conventions.md. */
export function errorResponse(status: number, code: string, message: string): Response {
  return json({ error: { code, message }, requestId: "req-test" }, status);
}

/** Board, feed rows and catalog events of `world` (every prediction's pair registered). */
export function worldAnswers(world: ScorerInput) {
  const verdicts = scoreV1(world).predictions;
  const events = new Map(world.events.map((event) => [event.id, event]));
  const board = {
    netuid: 41,
    updatedAt: world.computedAt,
    stale: false,
    prices: {
      taoUsd: 400,
      alphaTao: world.payout.alphaUsd / 400,
      alphaUsd: world.payout.alphaUsd,
      taoPriceUpdatedAt: world.computedAt,
    },
    scoringMeta: {
      windowDays: world.windowDays,
      computedAt: world.computedAt,
      forecastingWeightShare: world.payout.forecastingWeightShare,
      minerAlphaPerDay: world.payout.minerAlphaPerDay,
      forecastingBudgetAlphaPerDay: world.payout.minerAlphaPerDay * world.payout.forecastingWeightShare,
    },
    count: world.registrations.length,
    neurons: world.registrations.map(({ hotkey, uid, firstSeenAt }) => ({
      uid,
      hotkey,
      coldkey: `cold-${uid}`,
      stake: "0",
      validatorPermit: false,
      active: true,
      incentive: 0,
      emission: 0,
      trust: 0,
      consensus: 0,
      dividends: 0,
      lastUpdate: "1",
      firstSeenAt,
      scoring: SCORING,
      forecastingIncentive: 0,
      forecastingAlphaPerDay: 0,
      forecastingUsdPerDay: 0,
      rank: 1,
      brierInterval: null,
      edgeInterval: null,
    })),
    window: {
      from: world.computedAt,
      to: world.computedAt,
      scoredEvents: 0,
      countedPredictions: 0,
      lastRunAt: world.computedAt,
    },
    baselines: [],
  };
  const rows = world.predictions.map((p) => {
    const event = events.get(p.eventId)!;
    const reasons = verdicts[p.agentPredictionId]!.reasons;
    return {
      agentPredictionId: p.agentPredictionId,
      minerHotkey: p.minerHotkey,
      minerUid: p.minerUid,
      marketId: p.eventId,
      sourceMarketId: `src-${p.eventId}`,
      predictedAt: p.predictedAt,
      minerLastPredictedAt: p.predictedAt,
      predictedOutcomeId: p.predictedOutcomeId,
      confidence: p.confidence,
      outcomeProbabilities: p.outcomeProbabilities,
      outcomePricesAtPrediction: p.outcomePricesAtPrediction,
      resolvedOutcomeId: event.resolution.winningOutcomeId,
      finalOutcomePrices: null,
      resolvedAt: event.resolution.resolvedAt,
      predictionIsInvalid: reasons.length > 0,
      predictionInvalidReason: reasons[0] ?? null,
      predictionValidation: { isValid: reasons.length === 0, reasons, rawObserved: null },
      scoredAt: world.computedAt,
      resolutionStatus: event.resolution.resolutionStatus,
      validatorHotkey: "5validator",
      llmCalls: 0,
      llmCostMicro: "0",
    };
  });
  const catalog = world.events.map((event) => ({
    id: event.id,
    source: "polymarket",
    sourceMarketId: `src-${event.id}`,
    question: `Question ${event.id}?`,
    description: "",
    outcomes: event.outcomes,
    endDate: event.endDate,
    startDate: event.endDate,
    tagsAtAdmission: [],
    liquidityUsd: 1,
    volumeUsd: 1,
    volumeRecentUsd: 0,
    currentLiquidityUsd: 1,
    currentVolumeUsd: 1,
    currentOutcomePrices: event.outcomePricesAtAdmission,
    admittedAt: event.endDate,
    lastSeenAt: event.endDate,
    resolution: {
      ...event.resolution,
      winningOutcomeName: null,
      finalOutcomePrices: null,
    },
    outcomePricesAtAdmission: event.outcomePricesAtAdmission,
  }));
  return { board, rows, catalog };
}

/** A page of `items` from the `cursor` query parameter (an index). */
function page<T>(items: readonly T[], query: URLSearchParams, size: number) {
  const start = Number(query.get("cursor") ?? 0);
  const limit = Math.min(size, Number(query.get("limit") ?? 50));
  const end = Math.min(items.length, start + limit);
  return { items: items.slice(start, end), nextCursor: end < items.length ? String(end) : null };
}

/** The running fake; `requests` lists every path and query asked. */
export class FakeScoringService {
  readonly url: string;
  readonly requests: string[] = [];
  readonly #server: Deno.HttpServer<Deno.NetAddr>;

  constructor(world: ScorerInput, options: FakeScoringServiceOptions = {}) {
    const { board, rows, catalog } = worldAnswers(world);
    const hidden = new Set(options.hideEvents ?? []);
    const size = options.pageSize ?? 200;
    const answers: Record<string, (request: Request, query: URLSearchParams) => Response> = {
      "/v1/leaderboard": () => json(board),
      "/v1/validators/scored-predictions": (request, query) =>
        request.headers.has("x-validator-signature")
          ? json(page(rows, query, size))
          : errorResponse(401, "unauthenticated", "Missing signature headers"),
      "/v1/events": (_request, query) => {
        if (query.get("status") !== "resolved" || query.get("sortBy") !== "resolvedAt") {
          return errorResponse(400, "invalid_request", "fake: expected status=resolved&sortBy=resolvedAt");
        }
        const since = Date.parse(query.get("resolvedSince") ?? "");
        const listed = catalog.filter((event) =>
          event.resolution.resolutionStatus === "resolved" && !hidden.has(event.id) &&
          Date.parse(event.resolution.resolvedAt!) >= since
        );
        return json({
          ...page(listed, query, size),
          meta: { computedAt: world.computedAt, scorerVersion: "1.0.0" },
        });
      },
    };
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
      const url = new URL(request.url);
      this.requests.push(`${url.pathname}${url.search}`);
      const override = options.override?.[url.pathname];
      if (override) return override();
      const answer = answers[url.pathname];
      return answer ? answer(request, url.searchParams) : errorResponse(404, "not_found", "No such route");
    });
    this.url = `http://127.0.0.1:${this.#server.addr.port}`;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#server.shutdown();
  }
}
