import type { CatalogSnapshot, IndexedEvent } from "./catalog_snapshot.ts";

/**
 * The assignment-shaped pool (docs/events.md, "GET /v1/events/random"); band and deny list are configurable.
 */
export interface PoolRules {
  minEndInMs: number;
  maxEndInMs: number;
  minPrice: number;
  maxPrice: number;
  /** Lower-case substrings a question must not contain. */
  deniedSubstrings: readonly string[];
}

/** The pool's rules, applied at one instant. */
export interface PoolAt {
  nowMs: number;
  rules: PoolRules;
}

/** True when `item` belongs in the pool. */
export function inPool(item: IndexedEvent, { nowMs, rules }: PoolAt): boolean {
  const endsIn = item.endMs - nowMs;
  if (endsIn < rules.minEndInMs || endsIn > rules.maxEndInMs) return false;
  if (item.event.resolution.resolutionStatus !== "unresolved") return false;
  if (item.prices.length === 0) return false;
  if (!item.prices.every((price) => price >= rules.minPrice && price <= rules.maxPrice)) return false;
  const question = item.event.question.toLowerCase();
  return !rules.deniedSubstrings.some((denied) => question.includes(denied));
}

/** The pool, in the snapshot's endDate order (stable, so a seed picks deterministically). */
export function poolOf(snapshot: CatalogSnapshot, at: PoolAt): IndexedEvent[] {
  return snapshot.sorted("endDate").filter((item) => inPool(item, at));
}

/** One pool event: `seed % poolSize` when seeded, else uniformly random; undefined when empty. */
export function pickFromPool(
  pool: readonly IndexedEvent[],
  seed: number | undefined,
): IndexedEvent | undefined {
  if (pool.length === 0) return undefined;
  const offset = seed === undefined ? Math.floor(Math.random() * pool.length) : seed % pool.length;
  return pool[offset];
}
