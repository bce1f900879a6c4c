import { isDeepStrictEqual } from "node:util";
import type { Logger } from "../kernel/mod.ts";
import type { JobRun, PeriodicJob } from "../runtime/mod.ts";
import type { EventStore } from "../../storage/event_store.ts";
import type { MetagraphStore } from "../../storage/metagraph_store.ts";
import type { ScoreStore } from "../../storage/score_store.ts";
import type { SettingStore } from "../../storage/setting_store.ts";
import { decodeProgress, encodeProgress, PROGRESS_SETTING } from "./_scoring_progress.ts";
import { type EventPassDeps, type ScoringAssignments, settledEvents } from "./_event_pass.ts";
import { EVENTS_PER_BATCH, noOutcomes, type OutcomeCounts, scoreEventBatch } from "./_event_batch.ts";
import { computeScoreTable } from "./_table_pass.ts";
import type { FinalResolution } from "./stored_scoring.ts";

/** Batches of events scored at once (one's storage round trips overlap another's scoring). */
const BATCH_CONCURRENCY = 2;

/** The scheduler's name of the job, and of its storage lease. */
export const SCORING_JOB = "scoring";

export interface ScoringJobOptions {
  events: EventStore;
  assignments: ScoringAssignments;
  scores: ScoreStore;
  settings: SettingStore;
  metagraph: MetagraphStore;
  /** The subnet whose registrations the score table covers (`FGW_NETUID`). */
  netuid: number;
  /** `FGW_SCORING_INTERVAL_MS`: how often it runs; a run's `computedAt` is its interval's start. */
  intervalMs: number;
  /** `FGW_SCORING_WINDOW_DAYS`. */
  windowDays: number;
  /** How long after an event settled a submission may still arrive: lease plus grace. */
  lateSubmissionMs: number;
  /** How far behind the last change read the event feed is read again; default 60 s. */
  overlapMs?: number;
  log: Logger;
  /** Told once per event and instance when a source's settlement contradicts the scored one. */
  onSettlementContradicted?: (eventId: string) => void;
  /** After each run that completed (the service refreshes what it serves from the table). */
  afterRun?: () => Promise<unknown>;
}

function add(counts: OutcomeCounts, more: OutcomeCounts): void {
  for (const key of Object.keys(counts) as (keyof OutcomeCounts)[]) counts[key] += more[key];
}

/** `floor(now / interval) × interval` (docs/scoring.md, "The scoring job"). */
export function computedAtOf(nowMs: number, intervalMs: number): number {
  return Math.floor(nowMs / intervalMs) * intervalMs;
}

/**
 * The periodic scoring job (`scoring`), run by the scheduler under its lease: scores the stored
 * predictions of newly resolved events (voided and unresolved ones are not scored) and of late
 * submissions, marks them scored, then recomputes the score table at the run's `computedAt`.
 * Idempotent and resumable: a run re-reads what a crashed one left, and writes only what
 * changed; every write is fenced by the run's lease.
 */
export class ScoringJob implements PeriodicJob {
  readonly name = SCORING_JOB;
  readonly #options: ScoringJobOptions;
  readonly #conflicts = new Set<string>();

  constructor(options: ScoringJobOptions) {
    this.#options = options;
  }

  intervalMs(): number {
    return this.#options.intervalMs;
  }

  async run(nowMs: number, { signal, fence }: JobRun): Promise<void> {
    const { settings, log } = this.#options;
    const stored = await settings.get(PROGRESS_SETTING);
    const progress = decodeProgress(stored);
    const deps = this.#eventDeps();
    const { events, next } = await settledEvents(deps, progress, nowMs);
    const counts = noOutcomes();
    // Batches are independent: two at once, so round trips overlap. A fenced write stops the rest.
    let taken = 0;
    const worker = async () => {
      while (taken < events.length && !signal.aborted && counts.fenced === 0) {
        const batch = events.slice(taken, taken + EVENTS_PER_BATCH);
        taken += batch.length;
        add(counts, await scoreEventBatch(deps, batch, { nowMs, fence }));
      }
    };
    await Promise.all(Array.from({ length: BATCH_CONCURRENCY }, worker));
    if (counts.fenced > 0) return this.#fencedOff("event");
    if (signal.aborted) return;
    const computedAtMs = computedAtOf(nowMs, this.#options.intervalMs);
    const tableWritten = await this.#writeTable(computedAtMs, fence);
    if (tableWritten === "fenced") return this.#fencedOff("score table");
    const value = encodeProgress(next);
    if (value !== stored && !await settings.putFenced(PROGRESS_SETTING, { value, fence })) {
      return this.#fencedOff("progress");
    }
    log({
      level: counts.scored > 0 || tableWritten === "written" ? "info" : "debug",
      msg: "scoring run",
      computedAtMs,
      events: events.length,
      ...counts,
      table: tableWritten,
    });
    await this.#options.afterRun?.();
  }

  async #writeTable(
    computedAtMs: number,
    fence: JobRun["fence"],
  ): Promise<"written" | "unchanged" | "fenced"> {
    const { scores, metagraph, netuid, windowDays } = this.#options;
    const table = await computeScoreTable({ scores, metagraph, netuid, windowDays }, computedAtMs);
    if (isDeepStrictEqual(await scores.getTable(), table)) return "unchanged";
    return await scores.putTableFenced(table, { fence }) ? "written" : "fenced";
  }

  #fencedOff(what: string): void {
    this.#options.log({ level: "warn", msg: `scoring ${what} not recorded: a newer run holds the job` });
  }

  #eventDeps(): EventPassDeps {
    const { events, assignments, scores, lateSubmissionMs } = this.#options;
    return {
      events,
      assignments,
      scores,
      lateSubmissionMs,
      overlapMs: this.#options.overlapMs ?? 60_000,
      onSettlementContradicted: (eventId, settlements) => this.#conflict(eventId, settlements),
    };
  }

  /** A settled resolution is final: a different settlement is logged and counted once, never re-scored. */
  #conflict(eventId: string, settlements: { kept: FinalResolution; reported: FinalResolution }): void {
    if (this.#conflicts.has(eventId)) return;
    this.#conflicts.add(eventId);
    this.#options.log({
      level: "warn",
      msg: "event settlement differs from the scored one; the scored settlement is kept",
      eventId,
      kept: settlements.kept,
      reported: settlements.reported,
    });
    this.#options.onSettlementContradicted?.(eventId);
  }
}
