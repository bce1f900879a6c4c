import type { Fence } from "../job_lease_store.ts";
import type {
  MetagraphStore,
  MetagraphWrite,
  NeuronPair,
  StoredMetagraph,
  StoredNeuron,
} from "../metagraph_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { currentFence } from "./_job_lease_keys.ts";
import { LOST, retryConditional } from "../retry_conditional.ts";

/**
 * Where a subnet's metagraph stands: the generation whose chunks hold its neurons and pairs. A
 * sync writes a new generation's chunks first (invisible to readers), then flips this entry to
 * it in one atomic operation with the fence check, so readers see all of a sync or none of it.
 */
interface SyncEntry {
  block: number;
  syncedAtMs: number;
  generation: string;
  neuronChunks: number;
  pairChunks: number;
}

/** Chunk sizes that keep a value well under Deno KV's 64 KiB. */
const NEURONS_PER_CHUNK = 64;
const PAIRS_PER_CHUNK = 256;
/** Chunks per atomic operation: well under the 800 KiB a commit may carry. */
const CHUNKS_PER_COMMIT = 8;
/** Times a flip or a read starts over after a concurrent change (a lease renewal, another sync). */
const MAX_ATTEMPTS = 5;

type ChunkKind = "neurons" | "pairs";

function syncKey(netuid: number): Deno.KvKey {
  return ["metagraph", netuid, "sync"];
}

function chunkPrefix(netuid: number, kind: ChunkKind, generation?: string): Deno.KvKey {
  return generation === undefined ? ["metagraph", netuid, kind] : ["metagraph", netuid, kind, generation];
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let at = 0; at < items.length; at += size) chunks.push(items.slice(at, at + size));
  return chunks;
}

/** The metagraph in Deno KV: chunked generations behind one entry per subnet. */
export class KvMetagraphStore implements MetagraphStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async putFenced(
    metagraph: MetagraphWrite,
    options: { syncedAtMs: number; fence: Fence },
  ): Promise<boolean> {
    const { netuid } = metagraph;
    return await retryConditional(async () => {
      if (!await currentFence(this.#kv, options.fence)) return false;
      const current = await this.#kv.get<SyncEntry>(syncKey(netuid));
      const pairs = current.value ? await this.#readChunks<NeuronPair>(netuid, "pairs", current.value) : [];
      if (pairs === null) return LOST;
      const merged = mergePairs(pairs, metagraph, options.syncedAtMs);
      const next = await this.#writeGeneration(metagraph, { ...merged, syncedAtMs: options.syncedAtMs });
      const flipped = await this.#flip(netuid, { next, current, fence: options.fence });
      if (flipped === "done") {
        await this.#collect(netuid, { keep: next.generation, fence: options.fence });
        return true;
      }
      await this.#deleteGeneration(netuid, next);
      return flipped === "fenced" ? false : LOST;
    }, { what: `record the metagraph sync of netuid ${netuid}`, attempts: MAX_ATTEMPTS });
  }

  async latest(netuid: number): Promise<StoredMetagraph | null> {
    return await retryConditional(async () => {
      const { value } = await this.#kv.get<SyncEntry>(syncKey(netuid));
      if (value === null) return null;
      const neurons = await this.#readChunks<StoredNeuron>(netuid, "neurons", value);
      if (neurons === null) return LOST;
      return { netuid, block: value.block, syncedAtMs: value.syncedAtMs, neurons };
    }, { what: `read the metagraph of netuid ${netuid}`, attempts: MAX_ATTEMPTS });
  }

  async lastSyncedAt(netuid: number): Promise<number | null> {
    return (await this.#kv.get<SyncEntry>(syncKey(netuid))).value?.syncedAtMs ?? null;
  }

  async pairs(netuid: number, options: { hotkey?: string } = {}): Promise<NeuronPair[]> {
    return await retryConditional(async () => {
      const { value } = await this.#kv.get<SyncEntry>(syncKey(netuid));
      if (value === null) return [];
      const pairs = await this.#readChunks<NeuronPair>(netuid, "pairs", value);
      if (pairs === null) return LOST;
      return options.hotkey === undefined ? pairs : pairs.filter((pair) => pair.hotkey === options.hotkey);
    }, { what: `read the metagraph pairs of netuid ${netuid}`, attempts: MAX_ATTEMPTS });
  }

  /** The items of `entry`'s generation, or null when a newer sync removed its chunks meanwhile. */
  async #readChunks<T>(netuid: number, kind: ChunkKind, entry: SyncEntry): Promise<T[] | null> {
    const expected = kind === "neurons" ? entry.neuronChunks : entry.pairChunks;
    const chunks: T[][] = [];
    for await (const chunk of this.#kv.list<T[]>({ prefix: chunkPrefix(netuid, kind, entry.generation) })) {
      chunks.push(chunk.value);
    }
    return chunks.length === expected ? chunks.flat() : null;
  }

  /** Writes a new generation's chunks (unreferenced until the flip). */
  async #writeGeneration(
    metagraph: MetagraphWrite,
    data: { neurons: StoredNeuron[]; pairs: NeuronPair[]; syncedAtMs: number },
  ): Promise<SyncEntry> {
    const generation = crypto.randomUUID();
    const neuronChunks = chunked(data.neurons, NEURONS_PER_CHUNK);
    const pairChunks = chunked(data.pairs, PAIRS_PER_CHUNK);
    const entries: [Deno.KvKey, unknown][] = [
      ...neuronChunks.map((
        c,
        i,
      ): [Deno.KvKey, unknown] => [[...chunkPrefix(metagraph.netuid, "neurons"), generation, i], c]),
      ...pairChunks.map((
        c,
        i,
      ): [Deno.KvKey, unknown] => [[...chunkPrefix(metagraph.netuid, "pairs"), generation, i], c]),
    ];
    for (const batch of chunked(entries, CHUNKS_PER_COMMIT)) {
      await commitAtomic(() => batch.reduce((op, [key, value]) => op.set(key, value), this.#kv.atomic()));
    }
    return {
      block: metagraph.block,
      syncedAtMs: data.syncedAtMs,
      generation,
      neuronChunks: neuronChunks.length,
      pairChunks: pairChunks.length,
    };
  }

  /** Points the subnet at `next` if the fence holds and nobody flipped since `current` was read. */
  async #flip(
    netuid: number,
    at: { next: SyncEntry; current: Deno.KvEntryMaybe<SyncEntry>; fence: Fence },
  ): Promise<"done" | "fenced" | "changed"> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const lease = await currentFence(this.#kv, at.fence);
      if (!lease) return "fenced";
      const result = await commitAtomic(() =>
        this.#kv.atomic().check(lease).check(at.current).set(syncKey(netuid), at.next)
      );
      if (result.ok) return "done";
      const now = await this.#kv.get<SyncEntry>(syncKey(netuid));
      if (now.versionstamp !== at.current.versionstamp) return "changed";
    }
    return "changed";
  }

  /** Deletes the chunks of every generation but `keep`, while the fence holds (best effort). */
  async #collect(netuid: number, options: { keep: string; fence: Fence }): Promise<void> {
    const stale: Deno.KvKey[] = [];
    for (const kind of ["neurons", "pairs"] as const) {
      for await (const { key } of this.#kv.list({ prefix: chunkPrefix(netuid, kind) }, { batchSize: 500 })) {
        if (key[3] !== options.keep) stale.push(key);
      }
    }
    for (const batch of chunked(stale, 500)) {
      const lease = await currentFence(this.#kv, options.fence);
      if (!lease) return;
      await commitAtomic(() => batch.reduce((op, key) => op.delete(key), this.#kv.atomic().check(lease)));
    }
  }

  async #deleteGeneration(netuid: number, entry: SyncEntry): Promise<void> {
    const keys = [
      ...Array.from(
        { length: entry.neuronChunks },
        (_, i) => [...chunkPrefix(netuid, "neurons", entry.generation), i],
      ),
      ...Array.from(
        { length: entry.pairChunks },
        (_, i) => [...chunkPrefix(netuid, "pairs", entry.generation), i],
      ),
    ];
    for (const batch of chunked(keys, 500)) {
      await commitAtomic(() => batch.reduce((op, key) => op.delete(key), this.#kv.atomic()));
    }
  }
}

/**
 * Every pair ever seen plus the sync's new ones (first seen now), and the sync's neurons with the
 * time their pair was first seen. Pairs are ordered by uid, then time, then hotkey.
 */
function mergePairs(
  known: readonly NeuronPair[],
  metagraph: MetagraphWrite,
  syncedAtMs: number,
): { neurons: StoredNeuron[]; pairs: NeuronPair[] } {
  const firstSeen = new Map(known.map((pair) => [`${pair.uid}/${pair.hotkey}`, pair.firstSeenAtMs]));
  const added: NeuronPair[] = [];
  const neurons = metagraph.neurons.map((neuron): StoredNeuron => {
    const id = `${neuron.uid}/${neuron.hotkey}`;
    let firstSeenAtMs = firstSeen.get(id);
    if (firstSeenAtMs === undefined) {
      firstSeenAtMs = syncedAtMs;
      firstSeen.set(id, syncedAtMs);
      added.push({ uid: neuron.uid, hotkey: neuron.hotkey, firstSeenAtMs });
    }
    return { ...pickNeuron(neuron), firstSeenAtMs };
  }).toSorted((a, b) => a.uid - b.uid);
  const pairs = [...known, ...added].toSorted((a, b) =>
    a.uid - b.uid || a.firstSeenAtMs - b.firstSeenAtMs ||
    (a.hotkey < b.hotkey ? -1 : a.hotkey > b.hotkey ? 1 : 0)
  );
  return { neurons, pairs };
}

/** Only the stored fields, whatever else the caller's objects carry. */
function pickNeuron(n: MetagraphWrite["neurons"][number]): Omit<StoredNeuron, "firstSeenAtMs"> {
  const { uid, hotkey, coldkey, active, validatorPermit, stakeRao, emissionRao } = n;
  const { incentive, consensus, trust, validatorTrust, dividends, lastUpdate } = n;
  return {
    uid,
    hotkey,
    coldkey,
    active,
    validatorPermit,
    stakeRao,
    emissionRao,
    incentive,
    consensus,
    trust,
    validatorTrust,
    dividends,
    lastUpdate,
  };
}
