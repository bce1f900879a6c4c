import type {
  AgentMinerState,
  AgentStore,
  AgentVersion,
  AgentVersionWithCode,
  UploadOptions,
  UploadOutcome,
} from "../agent_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { LOST, type Lost, retryConditional } from "../retry_conditional.ts";

/** Bytes of code per KV value (a value holds at most 64 KiB). */
const CHUNK_BYTES = 60_000;
/** Chunks per commit (a commit carries at most 800 KiB). */
const CHUNKS_PER_COMMIT = 8;
/** Attempts of an upload's conditional commit (then a `WriteConflictError`: 409). */
const MAX_ATTEMPTS = 10;

const agentKeys = {
  miner: (hotkey: string): Deno.KvKey => ["agent_miner", hotkey],
  sha: (hotkey: string, sha256: string): Deno.KvKey => ["agent_sha", hotkey, sha256],
  version: (versionId: string): Deno.KvKey => ["agent_version", versionId],
  minerVersion: (hotkey: string, versionId: string): Deno.KvKey => ["agent_miner_version", hotkey, versionId],
  minerVersions: (hotkey: string): Deno.KvKey => ["agent_miner_version", hotkey],
  chunk: (versionId: string, index: number): Deno.KvKey => ["agent_code", versionId, index],
  chunks: (versionId: string): Deno.KvKey => ["agent_code", versionId],
};

type NewAgent = Omit<AgentVersionWithCode, "minerHotkey" | "createdAtMs">;

/**
 * Agent versions in Deno KV. The code is split into chunks under the version id (a value holds
 * at most 64 KiB and a commit 800 KiB), written before the version exists; the version, its
 * digest index and the miner's new state (current version, last upload) are then set in one
 * commit checked against the miner's and the digest's versionstamps. A commit that loses looks
 * again: the other upload's version now counts for the cooldown (or has the same digest). Chunks
 * of an upload that did not become a version are deleted; no other upload names its version id.
 */
export class KvAgentStore implements AgentStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async upload(minerHotkey: string, agent: NewAgent, options: UploadOptions): Promise<UploadOutcome> {
    let chunksWritten = false;
    try {
      return await retryConditional(async (): Promise<UploadOutcome | Lost> => {
        const [miner, sha] = await this.#kv.getMany<[AgentMinerState, string]>([
          agentKeys.miner(minerHotkey),
          agentKeys.sha(minerHotkey, agent.sha256),
        ]);
        const refused = await this.#refusal(miner.value, sha.value, options);
        if (refused) return refused;
        if (!chunksWritten) await this.#writeChunks(agent.versionId, agent.code);
        chunksWritten = true;
        const version: AgentVersion = { ...withoutCode(agent), minerHotkey, createdAtMs: options.nowMs };
        const state: AgentMinerState = { currentVersionId: agent.versionId, lastUploadAtMs: options.nowMs };
        const result = await commitAtomic(() =>
          this.#kv.atomic().check(miner).check(sha)
            .set(agentKeys.version(agent.versionId), version)
            .set(agentKeys.minerVersion(minerHotkey, agent.versionId), version)
            .set(agentKeys.sha(minerHotkey, agent.sha256), agent.versionId)
            .set(agentKeys.miner(minerHotkey), state)
        );
        if (!result.ok) return LOST;
        chunksWritten = false;
        return { outcome: "created", version };
      }, { what: `store an agent version of ${minerHotkey}`, attempts: MAX_ATTEMPTS });
    } finally {
      if (chunksWritten) await this.#deleteChunks(agent.versionId);
    }
  }

  /** `existing` or `cooldown` when the upload must not create a version; null when it may. */
  async #refusal(
    miner: AgentMinerState | null,
    existingId: string | null,
    { nowMs, cooldownMs }: UploadOptions,
  ): Promise<UploadOutcome | null> {
    if (existingId !== null) {
      const version = (await this.#kv.get<AgentVersion>(agentKeys.version(existingId))).value;
      if (!version) throw new Error(`Agent digest index names a missing version: ${existingId}`);
      return { outcome: "existing", version, current: miner?.currentVersionId === existingId };
    }
    if (miner && nowMs < miner.lastUploadAtMs + cooldownMs) {
      const retryAtMs = miner.lastUploadAtMs + cooldownMs;
      return { outcome: "cooldown", lastUploadAtMs: miner.lastUploadAtMs, retryAtMs };
    }
    return null;
  }

  async findBySha256(minerHotkey: string, sha256: string): Promise<AgentVersion | null> {
    const versionId = (await this.#kv.get<string>(agentKeys.sha(minerHotkey, sha256))).value;
    if (versionId === null) return null;
    return (await this.#kv.get<AgentVersion>(agentKeys.version(versionId))).value;
  }

  async get(versionId: string): Promise<AgentVersionWithCode | null> {
    const version = (await this.#kv.get<AgentVersion>(agentKeys.version(versionId))).value;
    if (!version) return null;
    const parts: Uint8Array[] = [];
    for await (const entry of this.#kv.list<Uint8Array>({ prefix: agentKeys.chunks(versionId) })) {
      parts.push(entry.value);
    }
    const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    return { ...version, code: new TextDecoder().decode(bytes) };
  }

  async listVersions(minerHotkey: string): Promise<AgentVersion[]> {
    const versions: AgentVersion[] = [];
    const entries = this.#kv.list<AgentVersion>({ prefix: agentKeys.minerVersions(minerHotkey) });
    for await (const entry of entries) versions.push(entry.value);
    return versions.toSorted((a, b) =>
      b.createdAtMs - a.createdAtMs || (a.versionId < b.versionId ? 1 : a.versionId > b.versionId ? -1 : 0)
    );
  }

  async minerState(minerHotkey: string): Promise<AgentMinerState | null> {
    return (await this.#kv.get<AgentMinerState>(agentKeys.miner(minerHotkey))).value;
  }

  /** Writes the code's UTF-8 bytes as numbered chunks under the version id (none for empty code). */
  async #writeChunks(versionId: string, code: string): Promise<void> {
    const bytes = new TextEncoder().encode(code);
    const count = Math.ceil(bytes.length / CHUNK_BYTES);
    for (let first = 0; first < count; first += CHUNKS_PER_COMMIT) {
      const last = Math.min(count, first + CHUNKS_PER_COMMIT);
      await commitAtomic(() => {
        const op = this.#kv.atomic();
        for (let i = first; i < last; i++) {
          op.set(agentKeys.chunk(versionId, i), bytes.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
        }
        return op;
      });
    }
  }

  async #deleteChunks(versionId: string): Promise<void> {
    for await (const entry of this.#kv.list({ prefix: agentKeys.chunks(versionId) })) {
      await this.#kv.delete(entry.key);
    }
  }
}

function withoutCode(agent: NewAgent): Omit<AgentVersion, "minerHotkey" | "createdAtMs"> {
  const { code: _code, ...rest } = agent;
  return rest;
}
