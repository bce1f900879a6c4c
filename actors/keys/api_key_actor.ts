import { type Clock, isoAt } from "../kernel/mod.ts";
import { type Actor, type ActorKind, conditionalWrite, LOST, type TaggedMessages } from "../runtime/mod.ts";
import { ServiceError } from "../kernel/mod.ts";
import { formatApiKey, hashSecret, newSecret } from "./api_key_secret.ts";
import {
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeySummary,
  type ApiKeyTerms,
  type StoredApiKey,
  summarizeApiKey,
} from "../../storage/api_key_store.ts";
import { type AuditActor, type AuditEntry, newAuditId } from "../../storage/audit_store.ts";

/** What the admin chooses when issuing a key (defined beside the record it becomes). */
export type { ApiKeyTerms };

/**
 * `by`: the member asking (the dashboard); the change is then written with its audit entry, in
 * one atomic write. Without it (the admin API) no entry is written.
 */
export type ApiKeyMessage =
  | { type: "issue"; terms: ApiKeyTerms; by?: AuditActor }
  | { type: "rotate"; by?: AuditActor }
  | { type: "revoke"; by?: AuditActor }
  | { type: "delete" }
  | { type: "get" };

/** `apiKey` (the full key) is present only in the replies to issue and rotate. */
export interface ApiKeyReply {
  key: ApiKeySummary | null;
  apiKey?: string;
}

/** The reply to issue and rotate: the key and, this once, its full secret. */
export interface IssuedKeyReply {
  key: ApiKeySummary;
  apiKey: string;
}

/** Each ApiKeyActor message with its reply. */
export type ApiKeyMessages = TaggedMessages<ApiKeyMessage, {
  issue: IssuedKeyReply;
  rotate: IssuedKeyReply;
  revoke: { key: ApiKeySummary };
  delete: { key: null };
  get: { key: ApiKeySummary | null };
}>;

export interface ApiKeyActorDeps {
  store: ApiKeyStore;
  clock: Clock;
}

/** The owner of one API key: issues, rotates, revokes and deletes it with version-checked writes. */
export class ApiKeyActor implements Actor<ApiKeyMessages> {
  readonly #keyId: string;
  readonly #deps: ApiKeyActorDeps;
  #state: StoredApiKey | null;

  /** `state`: the key as stored when the actor is activated (null when there is none). */
  constructor(keyId: string, options: ApiKeyActorDeps & { state: StoredApiKey | null }) {
    const { state, ...deps } = options;
    this.#keyId = keyId;
    this.#deps = deps;
    this.#state = state;
  }

  async receive(message: ApiKeyMessage): Promise<ApiKeyReply> {
    if (message.type === "issue") return await this.#issue(message.terms, message.by);
    // Another instance may have changed the key since activation: always start from storage.
    await this.#load();
    if (message.type === "get") return { key: this.#state && summarizeApiKey(this.#state) };
    if (message.type === "delete") return await this.#delete();
    return await this.#change(message.type, message.by);
  }

  /** The audit entry of a change `by` a member (none without `by`). */
  #audit(
    by: AuditActor | undefined,
    action: "key.issued" | "key.rotated" | "key.revoked",
    key: ApiKeyRecord,
  ): AuditEntry | undefined {
    if (by === undefined) return undefined;
    const details = { name: key.name };
    return {
      id: newAuditId(),
      orgId: key.orgId,
      atMs: this.#deps.clock(),
      by,
      action,
      subject: key.keyId,
      details,
    };
  }

  async #issue(terms: ApiKeyTerms, by?: AuditActor): Promise<IssuedKeyReply> {
    const secret = newSecret();
    const record: ApiKeyRecord = {
      keyId: this.#keyId,
      ...terms,
      scopes: [...new Set(terms.scopes)],
      createdAt: isoAt(this.#deps.clock()),
      secretHash: hashSecret(secret),
    };
    const stored = await this.#deps.store.create(record, this.#audit(by, "key.issued", record));
    if (!stored) throw new ServiceError("conflict", `Cannot issue key: id ${this.#keyId} is taken`);
    this.#state = stored;
    return { key: summarizeApiKey(stored), apiKey: formatApiKey(this.#keyId, secret) };
  }

  async #change(kind: "rotate" | "revoke", by?: AuditActor): Promise<ApiKeyReply> {
    return await conditionalWrite({
      what: `${kind} key ${this.#keyId}`,
      initial: this.#state,
      load: () => this.#load(),
      apply: async (state) => {
        const current = this.#existing(state);
        if (kind === "revoke" && current.revokedAt !== undefined) return { key: summarizeApiKey(current) };
        if (kind === "rotate") this.#assertRotatable(current);
        const secret = newSecret();
        const next: ApiKeyRecord = kind === "rotate"
          ? { ...current, secretHash: hashSecret(secret) }
          : { ...current, revokedAt: isoAt(this.#deps.clock()) };
        const action = kind === "rotate" ? "key.rotated" : "key.revoked";
        const written = await this.#deps.store.update(next, current.version, this.#audit(by, action, next));
        if (!written) return LOST;
        this.#state = written;
        const key = summarizeApiKey(written);
        return kind === "rotate" ? { key, apiKey: formatApiKey(this.#keyId, secret) } : { key };
      },
    });
  }

  async #delete(): Promise<ApiKeyReply> {
    return await conditionalWrite({
      what: `delete key ${this.#keyId}`,
      initial: this.#state,
      load: () => this.#load(),
      apply: async (state) => {
        if (!(await this.#deps.store.delete(this.#keyId, this.#existing(state).version))) return LOST;
        this.#state = null;
        return { key: null };
      },
    });
  }

  /** The key as stored now (another instance may have changed it), kept as this actor's state. */
  async #load(): Promise<StoredApiKey | null> {
    return this.#state = await this.#deps.store.get(this.#keyId);
  }

  /** `state`, or 404 when the key is not stored. */
  #existing(state: StoredApiKey | null): StoredApiKey {
    if (!state) throw new ServiceError("not_found", `No such API key: ${this.#keyId}`);
    return state;
  }

  #assertRotatable(key: StoredApiKey): void {
    if (key.revokedAt !== undefined) {
      throw new ServiceError("conflict", "Cannot rotate key: it is revoked", {
        details: { keyId: key.keyId },
      });
    }
    if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= this.#deps.clock()) {
      throw new ServiceError("conflict", "Cannot rotate key: it has expired", {
        details: { keyId: key.keyId },
      });
    }
  }
}

/** The ApiKeyActor kind ("api_key", addressed by key id): activation loads the key from storage. */
export function apiKeyActorKind(deps: ApiKeyActorDeps): ActorKind<ApiKeyMessages> {
  return {
    name: "api_key",
    activate: async (keyId) => new ApiKeyActor(keyId, { ...deps, state: await deps.store.get(keyId) }),
  };
}
