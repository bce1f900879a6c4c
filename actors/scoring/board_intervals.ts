/**
 * The 95 % intervals the leaderboard shows beside the score table (not part of scorer v1): per
 * (hotkey, uid) registration, those of its mean Brier and of its mean edge (`marketBrier − brier`)
 * over its valid counted rows in the window, one value per event (`meanInterval`).
 */
import type { WindowRow } from "../../storage/score_store.ts";
import { type MeanInterval, meanInterval } from "./page_interval.ts";
import { r6 } from "./scoring_math.ts";

/** A registration's two intervals; each null below `MIN_INTERVAL_EVENTS` valid rows. */
export interface MinerIntervals {
  brier: MeanInterval | null;
  edge: MeanInterval | null;
}

/** The key of a (hotkey, uid) registration in the intervals' map. */
export function registrationKey(uid: number, hotkey: string): string {
  return `${uid}/${hotkey}`;
}

/** `meanInterval` with its mean and bounds r6-rounded, as every published figure is. */
export function publishedInterval(values: readonly number[]): MeanInterval | null {
  const interval = meanInterval(values);
  if (interval === null) return null;
  return { mean: r6(interval.mean), low: r6(interval.low), high: r6(interval.high), n: interval.n };
}

/** Collects each registration's per-event Brier and edge values, one counted row at a time. */
export class IntervalFold {
  readonly #values = new Map<string, { brier: number[]; edge: number[] }>();

  add(row: Pick<WindowRow, "minerHotkey" | "minerUid" | "brier" | "marketBrier">): void {
    if (row.brier === null || row.marketBrier === null) return;
    const key = registrationKey(row.minerUid, row.minerHotkey);
    let values = this.#values.get(key);
    if (!values) this.#values.set(key, values = { brier: [], edge: [] });
    values.brier.push(row.brier);
    values.edge.push(row.marketBrier - row.brier);
  }

  /** The intervals of every registration with a valid row, by `registrationKey`. */
  result(): Map<string, MinerIntervals> {
    const intervals = new Map<string, MinerIntervals>();
    for (const [key, values] of this.#values) {
      intervals.set(key, { brier: publishedInterval(values.brier), edge: publishedInterval(values.edge) });
    }
    return intervals;
  }
}
