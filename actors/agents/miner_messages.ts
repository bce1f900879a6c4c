import type { ActorKind, ActorSystem, Ask, TaggedMessages } from "../runtime/mod.ts";
import type { AgentVersion } from "../../storage/agent_store.ts";

/** The messages a MinerActor (one per miner hotkey) understands. */
export type MinerMessage =
  /**
   * Stores `code` as the miner's new agent version, billed to nobody but gated on `orgId` (the org
   * the miner is registered to) having a positive available balance. Identical code answers the
   * existing version and changes nothing (docs/agents.md "Uploading").
   */
  | { type: "upload"; orgId: string; code: string; name?: string }
  /** The miner's versions (without code), newest first, and where its cooldown stands. */
  | { type: "versions" };

export interface UploadReply {
  version: AgentVersion;
  /** True for a new version; false when the miner had a version with this code already. */
  created: boolean;
  /** True when `version` is the miner's current one (always, unless the code matched an older one). */
  current: boolean;
}

export interface VersionsReply {
  versions: AgentVersion[];
  currentVersionId: string | null;
  lastUploadAtMs: number | null;
  /** When the next new version is accepted (null: now). */
  nextUploadAtMs: number | null;
}

/** The reply type of each message type. */
export interface MinerReplies {
  upload: UploadReply;
  versions: VersionsReply;
}

export type MinerReply = MinerReplies[keyof MinerReplies];

/** Each MinerActor message with its reply. */
export type MinerMessages = TaggedMessages<MinerMessage, MinerReplies>;

/** Sends a message to the MinerActor of a miner hotkey; the reply is typed after the message. */
export type AskMiner = Ask<MinerMessages>;

/** The `AskMiner` of one actor system and its registered MinerActor kind (what routes are given). */
export function minerAsker(actors: ActorSystem, kind: ActorKind<MinerMessages>): AskMiner {
  return (hotkey, message, options) => actors.ask(kind, hotkey, message, options);
}
