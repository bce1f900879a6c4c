import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { ActorSystem, type ActorSystemOptions } from "../../actors/runtime/mod.ts";
import { gatedKind, settle } from "../support/actors.ts";

function newSystem(options: Partial<ActorSystemOptions> = {}): ActorSystem {
  return new ActorSystem({ clock: new ManualClock().now, ...options });
}

/** True for the 503 `unavailable` (with Retry-After) a caller gets when it is refused or gives up. */
function isUnavailable(error: unknown): boolean {
  return error instanceof ServiceError && error.code === "unavailable" && error.retryAfterSeconds === 1;
}

Deno.test("a caller whose timeout passes gets 503 unavailable and its waiting message is skipped", async () => {
  const system = newSystem();
  const gated = gatedKind();
  system.register(gated.kind);
  const first = system.ask(gated.kind, "x", "m1");
  const second = system.ask(gated.kind, "x", "m2", { timeoutMs: 1 });
  await assert.rejects(second, isUnavailable);
  gated.release();
  assert.equal(await first, "x:m1");
  await system.drain();
  assert.deepEqual(gated.started, ["x:m1"], "m2 was never processed");
  assert.equal(system.pending(gated.kind.name), 0);
});

Deno.test("a caller whose signal aborts gets 503 unavailable at once and the actor never sees it", async () => {
  const system = newSystem();
  const gated = gatedKind();
  system.register(gated.kind);
  const first = system.ask(gated.kind, "x", "m1");
  const controller = new AbortController();
  const second = system.ask(gated.kind, "x", "m2", { signal: controller.signal });
  const third = system.ask(gated.kind, "x", "m3");
  controller.abort();
  await assert.rejects(second, isUnavailable);
  gated.release();
  await settle();
  gated.release();
  assert.deepEqual(await Promise.all([first, third]), ["x:m1", "x:m3"]);
  assert.deepEqual(gated.started, ["x:m1", "x:m3"]);
});

Deno.test("a signal aborted before the ask is refused without activating the actor", async () => {
  const system = newSystem();
  const gated = gatedKind();
  system.register(gated.kind);
  await assert.rejects(system.ask(gated.kind, "x", "m", { signal: AbortSignal.abort() }), isUnavailable);
  assert.equal(system.size, 0);
  assert.deepEqual(gated.started, []);
});

Deno.test("a running message whose caller gave up finishes before the next message starts", async () => {
  const system = newSystem();
  const gated = gatedKind();
  system.register(gated.kind);
  const controller = new AbortController();
  const first = system.ask(gated.kind, "x", "m1", { signal: controller.signal });
  const second = system.ask(gated.kind, "x", "m2");
  await settle();
  controller.abort();
  await assert.rejects(first, isUnavailable);
  await settle();
  assert.deepEqual(gated.started, ["x:m1"], "m2 waits for m1 although m1's caller is gone");
  gated.release();
  await settle();
  assert.deepEqual(gated.started, ["x:m1", "x:m2"]);
  gated.release();
  assert.equal(await second, "x:m2");
});

Deno.test("the system's default timeout bounds a caller that names none", async () => {
  const system = newSystem({ timeoutMs: 1 });
  const gated = gatedKind();
  system.register(gated.kind);
  await assert.rejects(system.ask(gated.kind, "x", "never answered"), isUnavailable);
  gated.release();
  await system.drain();
  assert.equal(system.pending(gated.kind.name), 0);
});

Deno.test("a full mailbox refuses at once with 503 unavailable, other ids are not affected", async () => {
  const system = newSystem({ maxPending: 2 });
  const gated = gatedKind();
  system.register(gated.kind);
  const accepted = [system.ask(gated.kind, "x", "m1"), system.ask(gated.kind, "x", "m2")];
  await assert.rejects(system.ask(gated.kind, "x", "m3"), isUnavailable);
  accepted.push(system.ask(gated.kind, "y", "m1"));
  assert.equal(system.pending(gated.kind.name), 3);
  for (let i = 0; i < 2; i++) {
    gated.release();
    await settle();
  }
  assert.deepEqual(await Promise.all(accepted), ["x:m1", "x:m2", "y:m1"]);
  assert.deepEqual(gated.started.toSorted(), ["x:m1", "x:m2", "y:m1"]);
});

Deno.test("a kind registered with its own maxPending and timeout uses them", async () => {
  const system = newSystem({ maxPending: 100 });
  const gated = gatedKind("tight");
  system.register(gated.kind, { maxPending: 1, timeoutMs: 1 });
  const first = system.ask(gated.kind, "x", "m1");
  await assert.rejects(system.ask(gated.kind, "x", "m2", { timeoutMs: 10_000 }), isUnavailable);
  await assert.rejects(first, isUnavailable, "the kind's 1 ms timeout");
  gated.release();
  await system.drain();
  assert.deepEqual(gated.started, ["x:m1"]);
});

Deno.test("a caller that gave up frees its place in a full mailbox", async () => {
  const system = newSystem({ maxPending: 2 });
  const gated = gatedKind();
  system.register(gated.kind);
  const first = system.ask(gated.kind, "x", "m1");
  const controller = new AbortController();
  const second = system.ask(gated.kind, "x", "m2", { signal: controller.signal });
  controller.abort();
  await assert.rejects(second, isUnavailable);
  const third = system.ask(gated.kind, "x", "m3");
  gated.release();
  await settle();
  gated.release();
  assert.deepEqual(await Promise.all([first, third]), ["x:m1", "x:m3"]);
});

Deno.test("sweep evicts a mailbox whose only waiting messages were given up", async () => {
  const clock = new ManualClock();
  const system = new ActorSystem({ clock: clock.now, idleMs: 1_000 });
  const gated = gatedKind();
  system.register(gated.kind);
  const first = system.ask(gated.kind, "x", "m1");
  const controller = new AbortController();
  const waiting = system.ask(gated.kind, "x", "m2", { signal: controller.signal });
  controller.abort();
  await assert.rejects(waiting, isUnavailable);
  clock.advance(5_000);
  assert.equal(system.sweep(), 0, "m1 is still running");
  gated.release();
  await first;
  clock.advance(1_000);
  assert.equal(system.sweep(), 1);
  assert.equal(system.size, 0);
});

Deno.test("limits are checked when they are set", () => {
  assert.throws(() => newSystem({ maxPending: 0 }), RangeError);
  assert.throws(() => newSystem({ timeoutMs: 0 }), RangeError);
  const system = newSystem();
  assert.throws(() => system.register(gatedKind().kind, { timeoutMs: 2 ** 31 }), RangeError);
});

Deno.test("callers with different timeouts each give up at their own deadline", async () => {
  const system = newSystem();
  const gated = gatedKind();
  system.register(gated.kind);
  const running = system.ask(gated.kind, "x", "m1", { timeoutMs: 60_000 });
  const patient = system.ask(gated.kind, "y", "m1", { timeoutMs: 60_000 });
  const hasty = system.ask(gated.kind, "x", "m2", { timeoutMs: 2 });
  await assert.rejects(hasty, isUnavailable);
  let patientDone = false;
  void patient.finally(() => patientDone = true);
  await settle();
  assert.equal(patientDone, false, "the 60 s callers still wait");
  gated.release();
  assert.deepEqual(await Promise.all([running, patient]), ["x:m1", "y:m1"]);
  await system.drain();
  assert.deepEqual(gated.started.toSorted(), ["x:m1", "y:m1"]);
});
