import type { Clock, Logger } from "../kernel/mod.ts";
import type { ActorObserver } from "./actor_kind.ts";

export interface ActorSystemOptions {
  clock: Clock;
  /** An actor idle this long with an empty mailbox is evicted by `sweep` (default 60 s). */
  idleMs?: number;
  /** Messages one mailbox may hold (waiting or running) before new ones are refused (default 1000). */
  maxPending?: number;
  /** How long a caller waits for its reply when it names no timeout (default 30 s). */
  timeoutMs?: number;
  /** Pause between attempts of a must-complete message: doubling from `firstMs` up to `maxMs`. */
  retry?: { firstMs?: number; maxMs?: number };
  /** Metrics hooks. */
  observer?: ActorObserver;
  /** Where retried must-complete messages and failing hooks are reported (default: nowhere). */
  log?: Logger;
}

/** Per-kind overrides of the system's limits. */
export interface KindOptions {
  maxPending?: number;
  timeoutMs?: number;
}
