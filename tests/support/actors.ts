import type { ActorKind, UniformMessages } from "../../actors/runtime/mod.ts";

/** A kind whose every message `M` is answered by an `R`. */
export type Kind<M, R> = ActorKind<UniformMessages<M, R>>;

/**
 * An actor that blocks every message until `release()`; `started` lists the messages begun
 * (`id:message`). `mustComplete` marks messages as must-complete.
 */
export function gatedKind(name = "gated", mustComplete?: (message: string) => boolean) {
  let gate = Promise.withResolvers<void>();
  const started: string[] = [];
  const kind: Kind<string, string> = {
    name,
    activate: (id) =>
      Promise.resolve({
        receive: async (message: string) => {
          started.push(`${id}:${message}`);
          await gate.promise;
          return `${id}:${message}`;
        },
      }),
    ...(mustComplete ? { mustComplete } : {}),
  };
  return {
    kind,
    started,
    /** Lets the running message (and only it, unless called again) finish. */
    release() {
      gate.resolve();
      gate = Promise.withResolvers<void>();
    },
  };
}

/** Lets queued promise callbacks run (no timers involved). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
