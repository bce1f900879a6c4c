import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import {
  ActorSystem,
  type ActorSystemOptions,
  isFinalAnswer,
  type ShedReason,
} from "../../actors/runtime/mod.ts";
import { gatedKind, type Kind, settle } from "../support/actors.ts";

/** Must-complete messages retry after 1–2 ms here, so the tests do not wait. */
function newSystem(options: Partial<ActorSystemOptions> = {}): ActorSystem {
  return new ActorSystem({ clock: new ManualClock().now, retry: { firstMs: 1, maxMs: 2 }, ...options });
}

const endsHold = (message: string) => message.startsWith("settle");

function isUnavailable(error: unknown): boolean {
  return error instanceof ServiceError && error.code === "unavailable";
}

/** A kind whose messages fail with `failures[i]` on attempt i (then succeed); counts attempts. */
function failingKind(failures: Error[]) {
  let attempts = 0;
  const kind: Kind<string, string> = {
    name: "failing",
    activate: () =>
      Promise.resolve({
        receive: (message: string) => {
          const failure = failures[attempts++];
          return failure ? Promise.reject(failure) : Promise.resolve(`done ${message}`);
        },
      }),
    mustComplete: endsHold,
  };
  return { kind, attempts: () => attempts };
}

Deno.test("a must-complete message is processed although its caller gave up", async () => {
  const system = newSystem();
  const gated = gatedKind("org", endsHold);
  system.register(gated.kind);
  const first = system.ask(gated.kind, "o", "reserve");
  const controller = new AbortController();
  const settleCall = system.ask(gated.kind, "o", "settle h1", { signal: controller.signal });
  const plain = system.ask(gated.kind, "o", "balance", { signal: controller.signal });
  controller.abort();
  await assert.rejects(
    settleCall,
    (error) => isUnavailable(error) && /still be completed/.test(String(error)),
  );
  await assert.rejects(plain, isUnavailable);
  gated.release();
  await first;
  await settle();
  gated.release();
  await system.drain();
  assert.deepEqual(gated.started, ["o:reserve", "o:settle h1"], "the settle ran, the balance did not");
});

Deno.test("a must-complete message whose signal aborted before the ask still runs", async () => {
  const system = newSystem();
  const gated = gatedKind("org", endsHold);
  system.register(gated.kind);
  await assert.rejects(
    system.ask(gated.kind, "o", "settle h1", { signal: AbortSignal.abort() }),
    isUnavailable,
  );
  await settle();
  gated.release();
  await system.drain();
  assert.deepEqual(gated.started, ["o:settle h1"]);
});

Deno.test("a full mailbox still accepts a must-complete message", async () => {
  const system = newSystem({ maxPending: 1 });
  const gated = gatedKind("org", endsHold);
  system.register(gated.kind);
  const first = system.ask(gated.kind, "o", "reserve");
  await assert.rejects(system.ask(gated.kind, "o", "balance"), isUnavailable);
  const accepted = system.ask(gated.kind, "o", "settle h1");
  gated.release();
  await settle();
  gated.release();
  assert.deepEqual(await Promise.all([first, accepted]), ["o:reserve", "o:settle h1"]);
});

Deno.test("a must-complete message is retried after transient failures until it succeeds", async () => {
  const system = newSystem();
  const failing = failingKind([new Error("Cannot commit: connection reset"), new TypeError("fetch failed")]);
  system.register(failing.kind);
  assert.equal(await system.ask(failing.kind, "o", "settle h1"), "done settle h1");
  assert.equal(failing.attempts(), 3);
});

Deno.test("a lost race past its bound (409 with Retry-After) is retried for a must-complete message", async () => {
  const system = newSystem();
  const lostRace = new ServiceError("conflict", "Cannot settle: kept changing", { retryAfterSeconds: 1 });
  const failing = failingKind([lostRace]);
  system.register(failing.kind);
  assert.equal(await system.ask(failing.kind, "o", "settle h1"), "done settle h1");
  assert.equal(failing.attempts(), 2);
});

Deno.test("a final answer ends a must-complete message at once", async () => {
  const system = newSystem();
  const failing = failingKind([new ServiceError("not_found", "Hold not found: h1")]);
  system.register(failing.kind);
  await assert.rejects(system.ask(failing.kind, "o", "settle h1"), (error) => !isUnavailable(error));
  assert.equal(failing.attempts(), 1);
  assert.equal(await system.ask(failing.kind, "o", "settle h2"), "done settle h2", "the mailbox goes on");
});

Deno.test("an ordinary message that fails is not retried", async () => {
  const system = newSystem();
  const failing = failingKind([new Error("Cannot read: connection reset")]);
  system.register(failing.kind);
  await assert.rejects(system.ask(failing.kind, "o", "balance"), /connection reset/);
  assert.equal(failing.attempts(), 1);
});

Deno.test("only a ServiceError without Retry-After is a final answer", () => {
  assert.equal(isFinalAnswer(new ServiceError("conflict", "Hold was settled with another cost")), true);
  assert.equal(isFinalAnswer(new ServiceError("conflict", "Kept changing", { retryAfterSeconds: 1 })), false);
  assert.equal(isFinalAnswer(new ServiceError("unavailable", "Busy", { retryAfterSeconds: 1 })), false);
  assert.equal(isFinalAnswer(new Error("connection reset")), false);
});

/** Every hook call, as text. */
function recordingObserver() {
  const calls: string[] = [];
  return {
    calls,
    observer: {
      onEnqueue: (kind: string, depth: number) => calls.push(`enqueue ${kind} ${depth}`),
      onDone: (kind: string, ms: number, failed: boolean) => calls.push(`done ${kind} ${ms} ${failed}`),
      onShed: (kind: string, reason: ShedReason) => calls.push(`shed ${kind} ${reason}`),
      onRetry: (kind: string, attempt: number) => calls.push(`retry ${kind} ${attempt}`),
    },
  };
}

Deno.test("the observer sees mailbox depth, message time, failures, shed messages and retries", async () => {
  const clock = new ManualClock();
  const { calls, observer } = recordingObserver();
  const system = new ActorSystem({
    clock: clock.now,
    maxPending: 3,
    observer,
    retry: { firstMs: 1, maxMs: 1 },
  });
  let attempts = 0;
  const kind: Kind<string, string> = {
    name: "k",
    activate: () =>
      Promise.resolve({
        receive: async (message: string) => {
          await settle();
          clock.advance(7);
          if (message === "boom" || (message === "settle" && attempts++ === 0)) throw new Error(message);
          return message;
        },
      }),
    mustComplete: (message) => message === "settle",
  };
  system.register(kind);
  const controller = new AbortController();
  const asks = [
    system.ask(kind, "a", "ok"),
    system.ask(kind, "a", "boom"),
    system.ask(kind, "a", "dropped", { signal: controller.signal }),
    system.ask(kind, "a", "full"),
    system.ask(kind, "b", "gone before asking", { signal: AbortSignal.abort() }),
  ];
  controller.abort(); // "dropped" is still waiting: it is skipped
  const results = await Promise.allSettled(asks);
  assert.deepEqual(results.map((result) => result.status), [
    "fulfilled",
    "rejected",
    "rejected",
    "rejected",
    "rejected",
  ]);
  assert.equal(await system.ask(kind, "c", "settle"), "settle");
  assert.deepEqual(calls.toSorted(), [
    "done k 14 false", // the settle: two attempts of 7 ms
    "done k 7 false",
    "done k 7 true",
    "enqueue k 1",
    "enqueue k 1",
    "enqueue k 2",
    "enqueue k 3",
    "retry k 1",
    "shed k aborted",
    "shed k full",
  ]);
});

Deno.test("a hook that throws is logged and does not disturb the messages", async () => {
  const logged: string[] = [];
  const system = newSystem({
    observer: {
      onEnqueue: () => {
        throw new Error("metrics registry closed");
      },
    },
    log: (line) => logged.push(line.msg),
  });
  const gated = gatedKind();
  system.register(gated.kind);
  const reply = system.ask(gated.kind, "x", "m");
  await settle();
  gated.release();
  assert.equal(await reply, "x:m");
  assert.deepEqual(logged, ["actor observer hook failed"]);
});
