/**
 * The spend caps of validator completions (docs/billing.md, "Spend caps of validator
 * completions"): a capped hold counts against its miner's UTC day, and may also count against the
 * signing validator's day on that miner and against the lease the call is made for. Each counter
 * is Σ held + Σ charged by the capped holds that name it, moved in the same commit as the hold,
 * its settle and its release.
 */

/** Which cap a counter is: the names `details.cap` of a 402 `spend_cap_reached` gives. */
export type CapName = "daily" | "validator" | "lease";

/** Every cap, in the order a hold's counters move (and are locked): daily, validator, lease. */
export const CAP_NAMES: readonly CapName[] = ["daily", "validator", "lease"];

/**
 * The caps a hold counts against. `day` is the UTC day of the hold (`YYYY-MM-DD`), kept with the
 * hold and its reservation, so its settle and release move that day's counters whenever they come.
 */
export interface HoldCap {
  minerHotkey: string;
  day: string;
  /** The validator making the call: also counts on (validator, miner, day). */
  validatorHotkey?: string;
  /** The lease (`agentPredictionId`) the call is made for: also counts on the lease. */
  agentPredictionId?: string;
}

/** One counter of capped holds. */
export type SpendCounter =
  | { cap: "daily"; minerHotkey: string; day: string }
  | { cap: "validator"; validatorHotkey: string; minerHotkey: string; day: string }
  | { cap: "lease"; agentPredictionId: string };

/** What the counters of an added capped hold may reach, each with the hold counted. */
export interface CapLimits {
  dailyMicro: bigint;
  /** Required when the hold names a validator. */
  validatorMicro?: bigint;
  /** Required when the hold names a lease. */
  leaseMicro?: bigint;
}

/** The counters `cap` moves, always in this order: daily, validator, lease. */
export function capCounters(cap: HoldCap): SpendCounter[] {
  const { minerHotkey, day, validatorHotkey, agentPredictionId } = cap;
  const counters: SpendCounter[] = [{ cap: "daily", minerHotkey, day }];
  if (validatorHotkey !== undefined) counters.push({ cap: "validator", validatorHotkey, minerHotkey, day });
  if (agentPredictionId !== undefined) counters.push({ cap: "lease", agentPredictionId });
  return counters;
}

/** The limit of `counter` in `limits`; a RangeError when the limits do not name it. */
export function counterLimit(counter: SpendCounter, limits: CapLimits): bigint {
  const limit = counter.cap === "daily"
    ? limits.dailyMicro
    : counter.cap === "validator"
    ? limits.validatorMicro
    : limits.leaseMicro;
  if (limit === undefined) throw new RangeError(`A hold capped by its ${counter.cap} needs that limit`);
  return limit;
}

/** The parts that name a counter among those of its cap (its key in storage, after the cap's name). */
export function counterParts(counter: SpendCounter): string[] {
  if (counter.cap === "daily") return [counter.minerHotkey, counter.day];
  if (counter.cap === "validator") return [counter.validatorHotkey, counter.minerHotkey, counter.day];
  return [counter.agentPredictionId];
}

/** A string naming `counter` (a map key). */
export function counterKey(counter: SpendCounter): string {
  return JSON.stringify([counter.cap, ...counterParts(counter)]);
}

/**
 * One step of the purge of spend counters that can no longer matter (`BillingStore.purgeSpendCounters`,
 * docs/billing.md "Purge of spend counters").
 */
export interface SpendPurgePage {
  /**
   * Counters dated before this UTC day (`YYYY-MM-DD`) are purged: a daily or validator counter by
   * its day, a lease counter by the latest day of a hold that named it.
   */
  beforeDay: string;
  /**
   * The current UTC day: it dates a lease counter stored before lease counters were dated, which
   * is then purged once that day is old enough.
   */
  today: string;
  /** The most counters this step works through. */
  limit: number;
  /** Where the previous step stopped (its `next`); from the start when absent. */
  after?: string;
}

/** What one step of the purge did. */
export interface SpendPurgeStep {
  /** Counters deleted. */
  purged: number;
  /** Where to go on (an opaque position, for `after`), or null when the purge went through every counter. */
  next: string | null;
}
