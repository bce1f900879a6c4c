/**
 * Resolves the demo's markets early, one after another in the order the validators reach them,
 * each once every demo miner's prediction on it is stored (the assignment store's predictions of
 * the event: a prediction counts there as soon as its submission is acknowledged). The winner is
 * drawn with the seed from the hidden probability of the prices the miners were leased. Right before
 * a market is resolved its consensus is put on record in the forecast history, as the hourly
 * snapshot would have (docs/predictions.md "History"), so the pages show the consensus forecast
 * of each resolved market and the leaderboard's consensus baseline scores it.
 */
import { setTimeout as delay } from "node:timers/promises";
import { poolOf } from "../../actors/catalog/mod.ts";
import type { Service } from "../service/service.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import { drawWinner, hiddenProbabilities, type PoolMarket } from "./demo_schedule.ts";
import type { ResolvingMarketSource } from "./resolving_source.ts";

/** A pool market with what the resolver and its printout need. */
export interface DemoMarket extends PoolMarket {
  sourceMarketId: string;
  question: string;
  /** Outcome id → name. */
  names: Readonly<Record<string, string>>;
}

/** How often the store is asked whether every miner has predicted the next market. */
const POLL_MS = 500;

/** The assignment pool as the service's catalog has it now, soonest-ending first. */
export function currentPool(service: Service, nowMs: number): DemoMarket[] {
  const snapshot = service.catalog.view.current();
  return poolOf(snapshot, { nowMs, rules: service.catalog.routes.pool }).map(({ event }) => ({
    eventId: event.id,
    sourceMarketId: event.sourceMarketId,
    question: event.question,
    outcomeIds: event.outcomes.map((outcome) => outcome.outcomeId),
    names: Object.fromEntries(event.outcomes.map((outcome) => [outcome.outcomeId, outcome.name])),
    prices: event.currentOutcomePrices,
  }));
}

export interface ResolverDeps {
  assignments: Pick<AssignmentStore, "listEventPredictions">;
  markets: ResolvingMarketSource;
  /** The demo miners' hotkeys: every one must have predicted a market before it is resolved. */
  miners: readonly string[];
  /** Records the event's consensus now in its forecast history (the snapshot job's `snapshotEvents`). */
  snapshot(eventId: string, nowMs: number): Promise<unknown>;
  seed: number;
  out(line: string): void;
  signal: AbortSignal;
}

/** Resolves `schedule` in order; returns when all are resolved or `deps.signal` aborts. */
export async function resolveOnSchedule(schedule: readonly DemoMarket[], deps: ResolverDeps): Promise<void> {
  for (const [index, market] of schedule.entries()) {
    const prices = await leasedPrices(market, deps);
    if (prices === null) return;
    const seen = { ...market, prices };
    const winner = drawWinner(deps.seed, seen);
    const snappedAtMs = Date.now();
    await deps.snapshot(market.eventId, snappedAtMs);
    // Resolved after the snapshot, never in its millisecond: the point is before `resolvedAt`.
    const resolvedAtMs = Math.max(Date.now(), snappedAtMs + 1);
    deps.markets.resolve(market.sourceMarketId, { winningOutcomeId: winner, resolvedAtMs });
    const price = (prices[winner] ?? 0).toFixed(3);
    const hidden = hiddenProbabilities(seen.outcomeIds, prices)[winner]!.toFixed(3);
    deps.out(
      `resolved ${index + 1}/${schedule.length}: ${market.eventId} "${clip(market.question, 60)}" → ` +
        `${market.names[winner] ?? winner} (its price ${price}, hidden probability ${hidden})`,
    );
  }
}

/**
 * The prices the first demo miner was leased `market` at, once every demo miner's prediction on it
 * is stored; null when stopped first.
 */
async function leasedPrices(market: DemoMarket, deps: ResolverDeps): Promise<Record<string, number> | null> {
  while (!deps.signal.aborted) {
    const stored = await deps.assignments.listEventPredictions(market.eventId, { limit: 200 });
    const byMiner = new Map(stored.map((prediction) => [prediction.minerHotkey, prediction]));
    if (deps.miners.every((hotkey) => byMiner.has(hotkey))) {
      return byMiner.get(deps.miners[0]!)!.outcomePricesAtPrediction;
    }
    await delay(POLL_MS, undefined, { signal: deps.signal }).catch(() => {});
  }
  return null;
}

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
