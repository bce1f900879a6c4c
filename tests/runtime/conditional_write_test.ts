import assert from "node:assert/strict";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { conditionalWrite, DEFAULT_WRITE_ATTEMPTS, LOST } from "../../actors/runtime/mod.ts";
import { retryConditional, WriteConflictError } from "../../storage/retry_conditional.ts";

/**
 * A versioned cell that `contenders` other writers bump before each of the first writes it sees,
 * so those writes lose their condition.
 */
function contendedCell(contenders: number) {
  const cell = { value: 0, version: 0, loads: 0, writes: 0 };
  return {
    cell,
    load: () => {
      cell.loads++;
      return Promise.resolve({ value: cell.value, version: cell.version });
    },
    write: (value: number, expectedVersion: number) => {
      cell.writes++;
      if (cell.writes <= contenders) {
        cell.value += 100; // another writer got in first
        cell.version++;
      }
      if (cell.version !== expectedVersion) return Promise.resolve(false);
      cell.value = value;
      cell.version++;
      return Promise.resolve(true);
    },
  };
}

Deno.test("a write that loses its race is applied again to a fresh load", async () => {
  const { cell, load, write } = contendedCell(2);
  const reply = await conditionalWrite({
    what: "add one",
    load,
    apply: async (state) => (await write(state.value + 1, state.version)) ? state.value + 1 : LOST,
  });
  assert.equal(reply, 201, "applied to the value the other writers left");
  assert.deepEqual({ value: cell.value, loads: cell.loads, writes: cell.writes }, {
    value: 201,
    loads: 3,
    writes: 3,
  });
});

Deno.test("the state at hand is used for the first attempt without a load", async () => {
  const { cell, load, write } = contendedCell(1);
  const reply = await conditionalWrite({
    what: "add one",
    initial: { value: 0, version: 0 },
    load,
    apply: async (state) => (await write(state.value + 1, state.version)) ? state.value + 1 : LOST,
  });
  assert.equal(reply, 101);
  assert.equal(cell.loads, 1, "loaded only after the first write lost");
});

Deno.test("a write that keeps losing answers 409 conflict with Retry-After after its bound", async () => {
  const { cell, load, write } = contendedCell(Infinity);
  const attempt = conditionalWrite({
    what: "add one to the cell",
    load,
    apply: async (state) => (await write(state.value + 1, state.version)) ? state.value : LOST,
  });
  await assert.rejects(attempt, (error) => {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, "conflict");
    assert.equal(error.retryAfterSeconds, 1);
    assert.match(error.message, /^Cannot add one to the cell: it kept changing under concurrent writers/);
    return true;
  });
  assert.equal(cell.writes, DEFAULT_WRITE_ATTEMPTS);
});

Deno.test("an answer or a thrown error from apply ends the loop at once", async () => {
  let applied = 0;
  const answer = await conditionalWrite({
    what: "read",
    load: () => Promise.resolve(null),
    apply: () => Promise.resolve(`no write needed ${++applied}`),
  });
  assert.equal(answer, "no write needed 1");
  await assert.rejects(
    conditionalWrite({
      what: "write",
      load: () => Promise.resolve(null),
      apply: () => Promise.reject(new ServiceError("not_found", "No such thing")),
    }),
    (error) => error instanceof ServiceError && error.code === "not_found",
  );
});

Deno.test("the storage-level retry gives up with a WriteConflictError after its bound", async () => {
  let attempts = 0;
  const lost = retryConditional(() => {
    attempts++;
    return Promise.resolve(LOST);
  }, { what: "commit to account org_1", attempts: 3 });
  await assert.rejects(lost, WriteConflictError);
  assert.equal(attempts, 3);
  assert.equal(
    await retryConditional((index) => Promise.resolve(index < 2 ? LOST : index), { what: "x", attempts: 3 }),
    2,
  );
  await assert.rejects(retryConditional(() => Promise.resolve(1), { what: "x", attempts: 0 }), RangeError);
});

Deno.test("a caller with its own answer for running out gets it instead of a conflict", async () => {
  const { cell, load, write } = contendedCell(Infinity);
  const reply = await conditionalWrite({
    what: "add one",
    attempts: 3,
    load,
    apply: async (state) => (await write(state.value + 1, state.version)) ? "written" : LOST,
    exhausted: () => "refused",
  });
  assert.equal(reply, "refused");
  assert.equal(cell.writes, 3);
});
