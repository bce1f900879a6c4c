import type { StoredMetagraph } from "../../storage/metagraph_store.ts";

/**
 * What the scoring area reads of the synced metagraph. The validators area's `MetagraphView` has
 * this shape; scoring names only what it reads, so it does not depend on that area (which itself
 * uses scorer v1's validity rules).
 */
export interface MetagraphReader {
  readonly netuid: number;
  readonly metagraph: StoredMetagraph | null;
  status(nowMs: number): "never_synced" | "stale" | "fresh";
}

/** The prices the leaderboard shows (the prices area's `PriceView.current()` answers this shape). */
export interface PriceReader {
  current(): {
    prices: { taoUsd: number; alphaTao: number; minerAlphaPerDay: number; at: string } | null;
    syncedAtMs: number | null;
    stale: boolean;
  };
}
