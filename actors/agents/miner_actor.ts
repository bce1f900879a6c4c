import { type Clock, isoAt, ServiceError } from "../kernel/mod.ts";
import type { Actor, ActorKind } from "../runtime/mod.ts";
import type { AskOrg } from "../billing/mod.ts";
import type { AgentStore, AgentVersion } from "../../storage/agent_store.ts";
import { checkAgentSource } from "./agent_source.ts";
import type {
  MinerMessage,
  MinerMessages,
  MinerReply,
  UploadReply,
  VersionsReply,
} from "./miner_messages.ts";

export type * from "./miner_messages.ts";
export { minerAsker } from "./miner_messages.ts";

export interface MinerActorDeps {
  agents: AgentStore;
  /** Asks the OrgActor of the miner's org for its balance. */
  askOrg: AskOrg;
  clock: Clock;
  /** Largest agent, in UTF-8 bytes (`FGW_AGENT_MAX_BYTES`). */
  maxBytes: number;
  /** One new version per miner per this period (`FGW_AGENT_COOLDOWN_MS`; 0: none). */
  cooldownMs: number;
  /**
   * Called with the miner's hotkey after a new version has committed, before the upload is
   * answered (the assignment sync of that miner, so the version is leasable at once); never rejects.
   */
  afterNewVersion?: (hotkey: string) => Promise<void>;
}

type Upload = Extract<MinerMessage, { type: "upload" }>;

/**
 * The owner of one miner's agent versions. An upload is checked (UTF-8, size, Python 3 syntax, a
 * top-level `agent_main`), answered with the existing version when the miner has this code
 * already, refused with 402 when the miner's org has no available balance, and otherwise stored
 * by one conditional write that also enforces the cooldown (429 with `Retry-After`), so that
 * racing uploads on several instances give one new version. Once that write has committed, and
 * apart from it, `afterNewVersion` syncs the miner's assignments. Storage is the truth: the actor
 * keeps no copy of the versions.
 */
export class MinerActor implements Actor<MinerMessages> {
  readonly #hotkey: string;
  readonly #deps: MinerActorDeps;

  constructor(hotkey: string, deps: MinerActorDeps) {
    this.#hotkey = hotkey;
    this.#deps = deps;
  }

  async receive(message: MinerMessage): Promise<MinerReply> {
    switch (message.type) {
      case "upload":
        return await this.#upload(message);
      case "versions":
        return await this.#versions();
    }
  }

  async #upload(message: Upload): Promise<UploadReply> {
    const { agents, askOrg, clock, maxBytes, cooldownMs } = this.#deps;
    const checked = await checkAgentSource(message.code, { maxBytes });
    // A repeat (a retry whose answer was lost, a daily deploy of unchanged code) is answered as it
    // was, whatever the balance or the cooldown say now.
    const existing = await agents.findBySha256(this.#hotkey, checked.sha256);
    if (existing) return { version: existing, created: false, current: await this.#isCurrent(existing) };
    const balance = await askOrg(message.orgId, { type: "balance" });
    if (balance.availableMicro <= 0n) {
      throw new ServiceError("insufficient_credits", "The miner's organisation needs a positive balance", {
        details: { orgId: message.orgId, availableMicro: balance.availableMicro.toString() },
      });
    }
    const nowMs = clock();
    const outcome = await agents.upload(this.#hotkey, {
      versionId: `agv_${crypto.randomUUID().replaceAll("-", "")}`,
      sha256: checked.sha256,
      sizeBytes: checked.sizeBytes,
      name: message.name ?? null,
      code: message.code,
    }, { nowMs, cooldownMs });
    switch (outcome.outcome) {
      case "created":
        await this.#deps.afterNewVersion?.(this.#hotkey);
        return { version: outcome.version, created: true, current: true };
      case "existing":
        return { version: outcome.version, created: false, current: outcome.current };
      case "cooldown":
        throw cooldownError(outcome, nowMs);
    }
  }

  async #isCurrent(version: AgentVersion): Promise<boolean> {
    return (await this.#deps.agents.minerState(this.#hotkey))?.currentVersionId === version.versionId;
  }

  async #versions(): Promise<VersionsReply> {
    const { agents, cooldownMs, clock } = this.#deps;
    const [versions, state] = await Promise.all([
      agents.listVersions(this.#hotkey),
      agents.minerState(this.#hotkey),
    ]);
    const nextMs = state ? state.lastUploadAtMs + cooldownMs : null;
    return {
      versions,
      currentVersionId: state?.currentVersionId ?? null,
      lastUploadAtMs: state?.lastUploadAtMs ?? null,
      nextUploadAtMs: nextMs !== null && nextMs > clock() ? nextMs : null,
    };
  }
}

function cooldownError(outcome: { lastUploadAtMs: number; retryAtMs: number }, nowMs: number): ServiceError {
  return new ServiceError(
    "rate_limited",
    `One new agent version per miner per cooldown: the next is accepted at ${isoAt(outcome.retryAtMs)}`,
    {
      retryAfterSeconds: Math.max(1, Math.ceil((outcome.retryAtMs - nowMs) / 1000)),
      details: { lastUploadAt: isoAt(outcome.lastUploadAtMs), retryAt: isoAt(outcome.retryAtMs) },
    },
  );
}

/** The MinerActor kind: one actor per miner hotkey (it loads nothing on activation). */
export function minerActorKind(deps: MinerActorDeps): ActorKind<MinerMessages> {
  return {
    name: "miner",
    activate: (hotkey) => Promise.resolve(new MinerActor(hotkey, deps)),
  };
}
