import { isoAt, ServiceError } from "../kernel/mod.ts";
import { Coalescer } from "../runtime/mod.ts";
import type { MetagraphStore, StoredMetagraph, StoredNeuron } from "../../storage/metagraph_store.ts";

/** How far the service can trust its metagraph (docs/validators.md, "Sync, storage and the view"). */
export type MetagraphStatus = "never_synced" | "stale" | "fresh";

/** A metagraph older than this many sync intervals is stale (docs/validators.md). */
export const STALE_AFTER_INTERVALS = 3;
/** Longest `Retry-After` of a 503 `metagraph_unavailable`. */
const MAX_RETRY_AFTER_MS = 60_000;

export interface MetagraphViewOptions {
  store: MetagraphStore;
  /** The subnet the service serves (`FGW_NETUID`). */
  netuid: number;
  /** The sync interval (`FGW_METAGRAPH_SYNC_MS`). */
  syncIntervalMs: number;
}

/**
 * One instance's in-memory copy of the latest metagraph in storage, for lookups on the request
 * path without a storage round trip. `refresh` asks storage for the time of the last successful
 * sync (one small read) and reloads the neurons only when it changed; the service calls it
 * periodically and after this instance's own sync, so a sync by any instance shows up here within
 * one refresh period.
 */
export class MetagraphView {
  readonly #options: MetagraphViewOptions;
  readonly #refreshes: Coalescer<null, void>;
  #metagraph: StoredMetagraph | null = null;
  #byHotkey = new Map<string, StoredNeuron>();

  constructor(options: MetagraphViewOptions) {
    this.#options = options;
    this.#refreshes = new Coalescer((_key, calls) => this.#reload().then(() => calls.map(() => {})));
  }

  /**
   * Brings the view up to date with storage. Concurrent calls share a read, but never one that
   * began before the call did, so a refresh after a write sees that write. Rejects (and keeps the
   * view as it was) when storage cannot be read.
   */
  refresh(): Promise<void> {
    return this.#refreshes.submit("metagraph", null);
  }

  /** The subnet this view follows. */
  get netuid(): number {
    return this.#options.netuid;
  }

  /** The sync interval staleness is counted in. */
  get syncIntervalMs(): number {
    return this.#options.syncIntervalMs;
  }

  /** The neuron holding `hotkey` in the latest metagraph, if any. */
  neuron(hotkey: string): StoredNeuron | undefined {
    return this.#byHotkey.get(hotkey);
  }

  /** The latest metagraph this view holds, or null before one was loaded. */
  get metagraph(): StoredMetagraph | null {
    return this.#metagraph;
  }

  /**
   * `never_synced` while no successful sync is known; `stale` when the last one is more than
   * three sync intervals before `nowMs`; else `fresh`.
   */
  status(nowMs: number): MetagraphStatus {
    if (this.#metagraph === null) return "never_synced";
    const ageMs = nowMs - this.#metagraph.syncedAtMs;
    return ageMs > STALE_AFTER_INTERVALS * this.#options.syncIntervalMs ? "stale" : "fresh";
  }

  /**
   * Throws 503 `metagraph_unavailable` (with `Retry-After`: one sync interval, at most 60 s)
   * unless the metagraph is fresh at `nowMs`: what signature routes check (docs/signatures.md, step 3).
   */
  requireFresh(nowMs: number): void {
    const status = this.status(nowMs);
    if (status === "fresh") return;
    const retryAfterSeconds = Math.min(this.#options.syncIntervalMs, MAX_RETRY_AFTER_MS) / 1000;
    const message = status === "never_synced"
      ? "The metagraph has not been synced yet"
      : `The metagraph is stale: last synced at ${isoAt(this.#metagraph!.syncedAtMs)}`;
    throw new ServiceError("metagraph_unavailable", message, { retryAfterSeconds, details: { status } });
  }

  async #reload(): Promise<void> {
    const { store, netuid } = this.#options;
    const syncedAtMs = await store.lastSyncedAt(netuid);
    if (syncedAtMs === null || syncedAtMs === this.#metagraph?.syncedAtMs) return;
    const metagraph = await store.latest(netuid);
    if (metagraph === null) return;
    this.#byHotkey = new Map(metagraph.neurons.map((neuron) => [neuron.hotkey, neuron]));
    this.#metagraph = metagraph;
  }
}
