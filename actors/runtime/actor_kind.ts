/**
 * The messages a kind of actor understands, each with its reply: `{ [name]: { message; reply } }`.
 * A message with a `type` field is filed under its type (`{ get: { message: { type: "get" }; … } }`),
 * which is how `ask` tells its reply; a kind of untagged messages has one entry.
 */
export type MessageMap = { [name: string]: { message: unknown; reply: unknown } };

/** Any message of `Map`. */
export type MessageOf<Map extends MessageMap> = Map[keyof Map]["message"];

/** Any reply of `Map`. */
export type ReplyOf<Map extends MessageMap> = Map[keyof Map]["reply"];

/**
 * The message of entry `K`, as `ask` takes it: `ask` infers `K` from the message's `type` (or,
 * for untagged messages, takes every entry), and answers `Map[K]["reply"]`. (The primitives keep
 * the tag from refusing a message that is not an object.)
 */
export type MessageFor<Map extends MessageMap, K extends keyof Map> =
  & Map[K]["message"]
  & ({ type?: K } | string | number | bigint | boolean | symbol | null | undefined);

/** The map of a union of messages tagged by `type`, each answered by `Replies[type]`. */
export type TaggedMessages<M extends { type: string }, Replies extends { [T in M["type"]]: unknown }> = {
  [T in M["type"]]: { message: Extract<M, { type: T }>; reply: Replies[T] };
};

/** The map of a kind whose every message `M` is answered by an `R`. */
export type UniformMessages<M, R> = { any: { message: M; reply: R } };

/** What became of one message of a batch: its reply, or the error its caller gets. */
export type BatchOutcome<R> = { reply: R } | { error: unknown };

/** An activated actor: handles one message at a time, in arrival order. */
export interface Actor<Map extends MessageMap> {
  receive(message: MessageOf<Map>): Promise<ReplyOf<Map>>;
  /**
   * Handles several batchable messages that were waiting together (`ActorKind.batchable`), as if
   * received one after the other in this order, and answers one outcome per message, in the same
   * order (an error in an outcome rejects only that message's caller). Rejecting fails every
   * message of the batch. Without it, the messages of a batch are received one at a time.
   */
  receiveBatch?(messages: MessageOf<Map>[]): Promise<BatchOutcome<ReplyOf<Map>>[]>;
}

/** A kind of virtual actor: how to activate an instance for an id (loading its state). */
export interface ActorKind<Map extends MessageMap> {
  /** Unique within one actor system. */
  readonly name: string;
  activate(id: string): Promise<Actor<Map>>;
  /**
   * True for a message that must be processed once accepted (it ends a billing hold, say): it is
   * never shed by a full mailbox nor skipped because its caller gave up, and it is retried until
   * it commits or meets a final answer (docs/runtime.md). It must be idempotent.
   */
  mustComplete?(message: MessageOf<Map>): boolean;
  /**
   * True for a message that may be handed to `receiveBatch` with the batchable messages waiting
   * right behind it in its mailbox (docs/runtime.md, "Batches"). Without it, nothing is batched.
   */
  batchable?(message: MessageOf<Map>): boolean;
  /** At most this many messages per batch (default `DEFAULT_MAX_BATCH`). */
  readonly maxBatch?: number;
}

/** Messages per batch when a batching kind names no `maxBatch`. */
export const DEFAULT_MAX_BATCH = 16;

/** How long a caller waits for its reply. */
export interface AskOptions {
  /** The caller gives up when it aborts (a client that went away). */
  signal?: AbortSignal;
  /** The caller gives up after this long (default: the kind's, else the system's). */
  timeoutMs?: number;
}

/** Asks the actor `id` of one kind; the reply is typed after the message. */
export type Ask<Map extends MessageMap> = <K extends keyof Map>(
  id: string,
  message: MessageFor<Map, K>,
  options?: AskOptions,
) => Promise<Map[K]["reply"]>;

/** Why a message was dropped without being processed. */
export type ShedReason = "full" | "timeout" | "aborted";

/**
 * Hooks for metrics (each optional; a hook that throws is logged and ignored). Kinds are named by
 * `ActorKind.name`.
 */
export interface ActorObserver {
  /** A message entered a mailbox, which now holds `depth` messages (waiting or running). */
  onEnqueue?(kind: string, depth: number): void;
  /** A message was processed in `ms` (from its start to its reply, retries included). */
  onDone?(kind: string, ms: number, failed: boolean): void;
  /** A message was dropped unprocessed: its mailbox was full, or its caller gave up before its turn. */
  onShed?(kind: string, reason: ShedReason): void;
  /** A must-complete message failed with `error` and is tried again (`attempt` failed so far). */
  onRetry?(kind: string, attempt: number, error: unknown): void;
}
