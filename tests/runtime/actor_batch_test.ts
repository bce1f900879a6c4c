import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { ActorSystem, type BatchOutcome } from "../../actors/runtime/mod.ts";
import { type Kind, settle } from "../support/actors.ts";

/** Must-complete messages retry after 1–2 ms here, so the tests do not wait. */
function newSystem(): ActorSystem {
  return new ActorSystem({ clock: new ManualClock().now, retry: { firstMs: 1, maxMs: 2 } });
}

/**
 * A kind whose messages starting with "money" are batchable and those starting with "money settle"
 * must-complete. Every call (`receive` or `receiveBatch`) waits for `release()`; `calls` lists
 * what each call got. A message "money fail N" fails (transiently) its first N receptions; "money
 * refuse" is answered with a final error; anything else is answered `done <message>`.
 */
function batchingKind(options: { maxBatch?: number; withBatch?: boolean } = {}) {
  let gate = Promise.withResolvers<void>();
  const calls: string[][] = [];
  const failures = new Map<string, number>();
  const answer = (message: string): BatchOutcome<string> => {
    const failing = /^money fail (\d+)/.exec(message);
    const failed = failures.get(message) ?? 0;
    if (failing && failed < Number(failing[1])) {
      failures.set(message, failed + 1);
      return { error: new Error(`transient ${message}`) };
    }
    if (message === "money refuse") return { error: new ServiceError("insufficient_credits", "no") };
    return { reply: `done ${message}` };
  };
  const actor = {
    receive: async (message: string) => {
      calls.push([message]);
      await gate.promise;
      const outcome = answer(message);
      if ("error" in outcome) throw outcome.error;
      return outcome.reply;
    },
    receiveBatch: async (messages: string[]) => {
      calls.push(messages);
      await gate.promise;
      return messages.map(answer);
    },
  };
  const { receive } = actor;
  const kind: Kind<string, string> = {
    name: "batching",
    activate: () => Promise.resolve(options.withBatch === false ? { receive } : actor),
    batchable: (message) => message.startsWith("money"),
    mustComplete: (message) => message.startsWith("money settle") || message.startsWith("money fail"),
    ...(options.maxBatch ? { maxBatch: options.maxBatch } : {}),
  };
  return {
    kind,
    calls,
    /** Lets the running call finish (and keeps the gate open when `open`). */
    release(open = false) {
      gate.resolve();
      if (!open) gate = Promise.withResolvers<void>();
    },
  };
}

async function outcome(call: Promise<string>): Promise<string> {
  try {
    return await call;
  } catch (error) {
    return error instanceof ServiceError ? `error ${error.code}` : `error ${String(error)}`;
  }
}

Deno.test("batchable messages waiting together are received as one batch, in mailbox order", async () => {
  const system = newSystem();
  const batching = batchingKind();
  system.register(batching.kind);
  const first = system.ask(batching.kind, "o", "money a");
  const waiting = ["money b", "money c", "money d"].map((m) => system.ask(batching.kind, "o", m));
  await settle();
  batching.release(true);
  assert.deepEqual(await Promise.all([first, ...waiting]), [
    "done money a",
    "done money b",
    "done money c",
    "done money d",
  ]);
  assert.deepEqual(batching.calls, [["money a"], ["money b", "money c", "money d"]]);
  assert.equal(system.pending("batching"), 0);
});

Deno.test("a message that is not batchable ends the batch and runs alone after it", async () => {
  const system = newSystem();
  const batching = batchingKind();
  system.register(batching.kind);
  const calls = ["balance", "money a", "money b", "get", "money c", "money d"]
    .map((message) => outcome(system.ask(batching.kind, "o", message)));
  await settle();
  batching.release(true);
  await Promise.all(calls);
  assert.deepEqual(batching.calls, [["balance"], ["money a", "money b"], ["get"], ["money c", "money d"]]);
});

Deno.test("a batch holds at most maxBatch messages; gone callers are left out", async () => {
  const system = newSystem();
  const batching = batchingKind({ maxBatch: 2 });
  system.register(batching.kind);
  const first = system.ask(batching.kind, "o", "balance");
  const controller = new AbortController();
  const gone = outcome(system.ask(batching.kind, "o", "money gone", { signal: controller.signal }));
  const rest = ["money a", "money b", "money c"].map((m) => system.ask(batching.kind, "o", m));
  controller.abort();
  assert.equal(await gone, "error unavailable");
  await settle();
  batching.release(true);
  await Promise.all([first, ...rest]);
  assert.deepEqual(batching.calls, [["balance"], ["money a", "money b"], ["money c"]]);
});

Deno.test("each caller gets its own outcome; a refusal breaks no other message", async () => {
  const system = newSystem();
  const batching = batchingKind();
  system.register(batching.kind);
  const calls = ["balance", "money a", "money refuse", "money b"]
    .map((message) => outcome(system.ask(batching.kind, "o", message)));
  await settle();
  batching.release(true);
  assert.deepEqual(await Promise.all(calls), [
    "done balance",
    "done money a",
    "error insufficient_credits",
    "done money b",
  ]);
});

Deno.test("must-complete messages of a batch that failed transiently are received again, alone", async () => {
  const system = newSystem();
  const batching = batchingKind();
  system.register(batching.kind);
  const calls = ["balance", "money a", "money fail 2", "money settle", "money b"]
    .map((message) => outcome(system.ask(batching.kind, "o", message)));
  const after = outcome(system.ask(batching.kind, "o", "get"));
  await settle();
  batching.release(true);
  assert.deepEqual(await Promise.all([...calls, after]), [
    "done balance",
    "done money a",
    "done money fail 2",
    "done money settle",
    "done money b",
    "done get",
  ]);
  assert.deepEqual(batching.calls, [
    ["balance"],
    ["money a", "money fail 2", "money settle", "money b"],
    ["money fail 2"],
    ["money fail 2"],
    ["get"],
  ], "the retries run before the next message");
});

Deno.test("a batch that fails as a whole fails its plain messages and retries its must-complete ones", async () => {
  const system = newSystem();
  let attempts = 0;
  const kind: Kind<string, string> = {
    name: "flaky",
    activate: () =>
      Promise.resolve({
        receive: (message: string) => Promise.resolve(`done ${message}`),
        receiveBatch: (messages: string[]) =>
          attempts++ === 0
            ? Promise.reject(new Error("storage down"))
            : Promise.resolve(messages.map((message) => ({ reply: `done ${message}` }))),
      }),
    batchable: () => true,
    mustComplete: (message) => message.startsWith("settle"),
  };
  system.register(kind);
  const calls = ["first", "plain", "settle h1"].map((message) => outcome(system.ask(kind, "o", message)));
  assert.deepEqual(await Promise.all(calls), ["done first", "error Error: storage down", "done settle h1"]);
  assert.equal(attempts, 2);
});

Deno.test("an actor without receiveBatch receives the messages of a batch one at a time", async () => {
  const system = newSystem();
  const batching = batchingKind({ withBatch: false });
  system.register(batching.kind);
  const calls = ["balance", "money a", "money b"].map((message) => system.ask(batching.kind, "o", message));
  await settle();
  batching.release(true);
  assert.deepEqual(await Promise.all(calls), ["done balance", "done money a", "done money b"]);
  assert.deepEqual(batching.calls, [["balance"], ["money a"], ["money b"]]);
});

Deno.test("registering a kind with an invalid maxBatch is a RangeError", () => {
  const system = newSystem();
  const { kind } = batchingKind({ maxBatch: 0.5 });
  assert.throws(() => system.register(kind), RangeError);
});
