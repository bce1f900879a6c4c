import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { gatedKind, type Kind, settle } from "../support/actors.ts";

const IDLE_MS = 60_000;

function newSystem(): { clock: ManualClock; system: ActorSystem } {
  const clock = new ManualClock();
  return { clock, system: new ActorSystem({ clock: clock.now, idleMs: IDLE_MS }) };
}

function randomDelay(maxMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * maxMs)));
}

/**
 * A counter actor whose state lives in `store` (the "storage"): activation loads it, each
 * message adds to it and writes it back. Activations are counted per id.
 */
function counterKind(store: Map<string, number>) {
  const activations = new Map<string, number>();
  const kind: Kind<number, number> = {
    name: "counter",
    activate: (id) => {
      activations.set(id, (activations.get(id) ?? 0) + 1);
      let total = store.get(id) ?? 0;
      return Promise.resolve({
        receive: (amount: number) => {
          total += amount;
          store.set(id, total);
          return Promise.resolve(total);
        },
      });
    },
  };
  return { kind, activations };
}

Deno.test("messages to one id run one at a time, in the order they were sent", async () => {
  const { system } = newSystem();
  const log: string[] = [];
  let running = 0;
  const kind: Kind<number, number> = {
    name: "slow",
    activate: () =>
      Promise.resolve({
        receive: async (message: number) => {
          running++;
          assert.equal(running, 1, `message ${message} started while another was running`);
          log.push(`start ${message}`);
          await randomDelay(4);
          log.push(`end ${message}`);
          running--;
          return message * 10;
        },
      }),
  };
  system.register(kind);
  const messages = Array.from({ length: 40 }, (_, index) => index);
  const replies = await Promise.all(messages.map((message) => system.ask(kind, "one", message)));
  assert.deepEqual(replies, messages.map((message) => message * 10));
  assert.deepEqual(log, messages.flatMap((message) => [`start ${message}`, `end ${message}`]));
});

Deno.test("messages to different ids run at the same time", async () => {
  const { system } = newSystem();
  const gated = gatedKind();
  system.register(gated.kind);
  const a = system.ask(gated.kind, "a", "first");
  const b = system.ask(gated.kind, "b", "first");
  await settle();
  assert.deepEqual(gated.started.toSorted(), ["a:first", "b:first"]);
  gated.release();
  assert.deepEqual(await Promise.all([a, b]), ["a:first", "b:first"]);
});

Deno.test("the same id under two kinds is two actors with their own mailboxes", async () => {
  const { system } = newSystem();
  const first = gatedKind("first");
  system.register(first.kind);
  const second = gatedKind("second");
  system.register(second.kind);
  const a = system.ask(first.kind, "x", "m");
  const b = system.ask(second.kind, "x", "m");
  await settle();
  assert.deepEqual([first.started, second.started], [["x:m"], ["x:m"]]);
  assert.equal(system.size, 2);
  first.release();
  second.release();
  await Promise.all([a, b]);
});

Deno.test("a failed message rejects only its caller and the next message still runs", async () => {
  const { system } = newSystem();
  let activations = 0;
  const kind: Kind<string, string[]> = {
    name: "fragile",
    activate: () => {
      activations++;
      const seen: string[] = [];
      return Promise.resolve({
        receive: async (message: string) => {
          await randomDelay(2);
          if (message === "boom") throw new RangeError("Cannot handle message: boom");
          seen.push(message);
          return [...seen];
        },
      });
    },
  };
  system.register(kind);
  const results = await Promise.allSettled(
    ["one", "boom", "two"].map((message) => system.ask(kind, "f", message)),
  );
  assert.deepEqual(results[0], { status: "fulfilled", value: ["one"] });
  assert.equal(results[1]?.status, "rejected");
  assert.ok(results[1].reason instanceof RangeError);
  assert.equal(results[1].reason.message, "Cannot handle message: boom");
  assert.deepEqual(results[2], { status: "fulfilled", value: ["one", "two"] }, "state survives the failure");
  assert.equal(activations, 1);
});

Deno.test("a failed activation rejects the message and the next message activates again", async () => {
  const { system } = newSystem();
  let attempts = 0;
  const kind: Kind<string, string> = {
    name: "flaky",
    activate: () => {
      attempts++;
      if (attempts === 1) return Promise.reject(new Error("Cannot load state: storage down"));
      return Promise.resolve({ receive: (message: string) => Promise.resolve(`ok ${message}`) });
    },
  };
  system.register(kind);
  const [first, second] = await Promise.allSettled([system.ask(kind, "x", "a"), system.ask(kind, "x", "b")]);
  assert.equal(first?.status, "rejected");
  assert.equal(first.reason.message, "Cannot load state: storage down");
  assert.deepEqual(second, { status: "fulfilled", value: "ok b" });
  assert.equal(await system.ask(kind, "x", "c"), "ok c");
  assert.equal(attempts, 2, "one failed activation, then one that stayed active");
});

Deno.test("an activation that throws synchronously is retried on the next message", async () => {
  const { system } = newSystem();
  let attempts = 0;
  const kind: Kind<string, string> = {
    name: "sync-throw",
    activate: () => {
      attempts++;
      if (attempts === 1) throw new TypeError("Cannot activate: bad id");
      return Promise.resolve({ receive: (message: string) => Promise.resolve(message) });
    },
  };
  system.register(kind);
  await assert.rejects(system.ask(kind, "x", "a"), TypeError);
  assert.equal(await system.ask(kind, "x", "b"), "b");
  assert.equal(attempts, 2);
});

Deno.test("state is loaded once per activation and loaded again after eviction", async () => {
  const { clock, system } = newSystem();
  const store = new Map<string, number>();
  const { kind, activations } = counterKind(store);
  system.register(kind);
  assert.equal(await system.ask(kind, "c", 1), 1);
  assert.equal(await system.ask(kind, "c", 2), 3);
  assert.equal(await system.ask(kind, "c", 3), 6);
  assert.equal(activations.get("c"), 1);

  clock.advance(IDLE_MS);
  assert.equal(system.sweep(), 1);
  assert.equal(system.size, 0);
  store.set("c", 100); // another instance wrote meanwhile: the next activation must see it
  assert.equal(await system.ask(kind, "c", 1), 101);
  assert.equal(activations.get("c"), 2);
});

Deno.test("sweep keeps an actor that has been idle for less than the idle time", async () => {
  const { clock, system } = newSystem();
  const { kind, activations } = counterKind(new Map());
  system.register(kind);
  await system.ask(kind, "c", 1);
  clock.advance(IDLE_MS - 1);
  assert.equal(system.sweep(), 0);
  assert.equal(system.size, 1);
  clock.advance(IDLE_MS - 1);
  await system.ask(kind, "c", 1); // the idle time restarts after each message
  clock.advance(IDLE_MS - 1);
  assert.equal(system.sweep(), 0);
  assert.equal(activations.get("c"), 1);
  clock.advance(1);
  assert.equal(system.sweep(), 1);
});

Deno.test("sweep never evicts an actor with messages in its mailbox", async () => {
  const { clock, system } = newSystem();
  const gated = gatedKind();
  system.register(gated.kind);
  const replies = ["m1", "m2", "m3"].map((message) => system.ask(gated.kind, "busy", message));
  await settle();
  clock.advance(10 * IDLE_MS);
  assert.equal(system.sweep(), 0);
  assert.equal(system.size, 1);
  for (let index = 0; index < 3; index++) {
    gated.release();
    await settle();
    clock.advance(10 * IDLE_MS);
    if (index < 2) assert.equal(system.sweep(), 0, `evicted with ${2 - index} messages queued`);
  }
  assert.deepEqual(await Promise.all(replies), ["busy:m1", "busy:m2", "busy:m3"]);
  assert.deepEqual(gated.started, ["busy:m1", "busy:m2", "busy:m3"]);
  assert.equal(system.sweep(), 1);
  assert.equal(system.size, 0);
});

Deno.test("after many ids are used and swept, no actor entry is left behind", async () => {
  const { clock, system } = newSystem();
  let activations = 0;
  const kind: Kind<number, number> = {
    name: "mixed",
    activate: (id) => {
      activations++;
      if (Number(id) % 7 === 0) return Promise.reject(new Error(`Cannot activate: ${id}`));
      return Promise.resolve({
        receive: async (message: number) => {
          await randomDelay(2);
          if (message % 5 === 0) throw new Error(`Cannot handle: ${message}`);
          return message;
        },
      });
    },
  };
  system.register(kind);
  const asks = [];
  for (let round = 0; round < 3; round++) {
    for (let id = 0; id < 300; id++) asks.push(system.ask(kind, String(id), id + round));
  }
  const results = await Promise.allSettled(asks);
  assert.ok(results.some((result) => result.status === "rejected"));
  assert.ok(results.some((result) => result.status === "fulfilled"));
  assert.equal(system.size, 300);
  clock.advance(IDLE_MS);
  assert.equal(system.sweep(), 300);
  assert.equal(system.size, 0);
  assert.equal(system.sweep(), 0);
  assert.ok(activations >= 300);
});

Deno.test("forget drops an idle actor so its next message loads state again", async () => {
  const { system } = newSystem();
  const store = new Map<string, number>();
  const { kind, activations } = counterKind(store);
  system.register(kind);
  await system.ask(kind, "c", 5);
  system.forget(kind.name, "c");
  assert.equal(system.size, 0);
  store.set("c", 50);
  assert.equal(await system.ask(kind, "c", 1), 51);
  assert.equal(activations.get("c"), 2);
});

Deno.test("forget on a busy actor lets queued messages finish, then the next message reactivates", async () => {
  const { system } = newSystem();
  let activations = 0;
  let gate = Promise.withResolvers<void>();
  const kind: Kind<string, string> = {
    name: "busy",
    activate: () => {
      const generation = ++activations;
      return Promise.resolve({
        receive: async (message: string) => {
          await gate.promise;
          return `${message}@${generation}`;
        },
      });
    },
  };
  system.register(kind);
  const first = system.ask(kind, "b", "first");
  await settle();
  system.forget(kind.name, "b");
  assert.equal(system.size, 1, "a busy actor keeps its mailbox");
  const second = system.ask(kind, "b", "second");
  gate.resolve();
  assert.equal(await first, "first@1");
  assert.equal(await second, "second@2");
  gate = Promise.withResolvers<void>();
  gate.resolve();
  assert.equal(await system.ask(kind, "b", "third"), "third@2");
});

Deno.test("drain resolves only once every mailbox is empty", async () => {
  const { system } = newSystem();
  let done = 0;
  const kind: Kind<number, void> = {
    name: "slow",
    activate: () =>
      Promise.resolve({
        receive: async (message: number) => {
          await randomDelay(5);
          if (message % 4 === 0) throw new Error("Cannot handle message");
          done++;
        },
      }),
  };
  system.register(kind);
  const asks = Array.from({ length: 60 }, (_, index) => system.ask(kind, String(index % 6), index));
  const settled = Promise.allSettled(asks);
  await system.drain();
  assert.equal(done, 45);
  assert.equal(system.size, 6);
  assert.equal((await settled).filter((result) => result.status === "rejected").length, 15);
});

Deno.test("a kind name can be registered only once per system", () => {
  const { system } = newSystem();
  system.register(gatedKind("orders").kind);
  assert.throws(() => system.register(gatedKind("orders").kind), TypeError);
  assert.throws(() => system.register(gatedKind("orders").kind), /orders is already registered/);
});

Deno.test("asking a kind that was not registered is an error and activates nothing", async () => {
  const { system } = newSystem();
  const registered = gatedKind("orders");
  system.register(registered.kind);
  const unregistered = gatedKind("other");
  await assert.rejects(system.ask(unregistered.kind, "x", "m"), TypeError);
  const impostor = gatedKind("orders"); // same name as a registered kind, but not the one registered
  await assert.rejects(system.ask(impostor.kind, "x", "m"), /orders is not registered/);
  assert.deepEqual([unregistered.started, impostor.started, registered.started], [[], [], []]);
  assert.equal(system.size, 0);
});

Deno.test("replies are typed after the message, with no cast at the call site", async () => {
  const { system } = newSystem();
  type Messages = {
    add: { message: { type: "add"; amount: number }; reply: { total: number } };
    name: { message: { type: "name" }; reply: string };
  };
  let total = 0;
  const kind = system.register<Messages>({
    name: "typed",
    activate: () =>
      Promise.resolve({
        receive: (message) =>
          Promise.resolve(message.type === "add" ? { total: total += message.amount } : "typed"),
      }),
  });
  // These annotations only compile when `ask` infers each reply from its message.
  const added: { total: number } = await system.ask(kind, "t", { type: "add", amount: 2 });
  const name: string = await system.ask(kind, "t", { type: "name" });
  assert.deepEqual([added, name], [{ total: 2 }, "typed"]);
});
