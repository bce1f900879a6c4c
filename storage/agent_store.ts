/** One version of a miner's Python agent, without its code. */
export interface AgentVersion {
  versionId: string;
  minerHotkey: string;
  /** Lowercase hex SHA-256 of the code's UTF-8 bytes: a miner has at most one version per digest. */
  sha256: string;
  /** Size of the code in UTF-8 bytes. */
  sizeBytes: number;
  /** The miner's label for the version, if it gave one. */
  name: string | null;
  createdAtMs: number;
}

/** A version with its Python source. */
export interface AgentVersionWithCode extends AgentVersion {
  code: string;
}

/** Where a miner stands: its current (newest) version and when it last uploaded a new one. */
export interface AgentMinerState {
  currentVersionId: string;
  lastUploadAtMs: number;
}

/** What `upload` decided, in one atomic step. */
export type UploadOutcome =
  /** A new version, now the miner's current one; the upload time restarts the cooldown. */
  | { outcome: "created"; version: AgentVersion }
  /** The miner already has a version with this digest: nothing was written. */
  | { outcome: "existing"; version: AgentVersion; current: boolean }
  /** The last upload is younger than the cooldown: nothing was written. */
  | { outcome: "cooldown"; lastUploadAtMs: number; retryAtMs: number };

export interface UploadOptions {
  /** The uploader's time (injected clock): the version's `createdAtMs` and the cooldown's "now". */
  nowMs: number;
  /** At most one new version per miner per this period (0: no cooldown). */
  cooldownMs: number;
}

/**
 * Port for miners' agent versions. Versions are content-addressed per miner: a digest the miner
 * already has names that version, so uploading identical code again writes nothing and neither
 * checks nor restarts the cooldown. A new version is written, made current and stamped as the
 * miner's last upload in one conditional write that also checks the cooldown, so two racing
 * uploads for one miner (on any instances) cannot both pass it. Each miner is written only by
 * its MinerActor; the condition keeps instances correct. An adapter whose condition keeps losing
 * beyond its retry bound throws a `WriteConflictError` (409).
 */
export interface AgentStore {
  /**
   * Stores `agent` as a new version of `minerHotkey` unless the miner has a version with its
   * digest (`existing`) or uploaded one less than `cooldownMs` before `nowMs` (`cooldown`).
   * `agent.versionId` is used only when the version is created.
   */
  upload(
    minerHotkey: string,
    agent: Omit<AgentVersionWithCode, "minerHotkey" | "createdAtMs">,
    options: UploadOptions,
  ): Promise<UploadOutcome>;
  /** The miner's version with this digest, if any. */
  findBySha256(minerHotkey: string, sha256: string): Promise<AgentVersion | null>;
  /** A version with its code (what a lease hands to a validator). */
  get(versionId: string): Promise<AgentVersionWithCode | null>;
  /** The miner's versions, newest first (by `createdAtMs`, then `versionId`). */
  listVersions(minerHotkey: string): Promise<AgentVersion[]>;
  /** The miner's current version and last upload; null before its first upload. */
  minerState(minerHotkey: string): Promise<AgentMinerState | null>;
}
