/**
 * A submission's free-form JSON (`prediction.executionMetadata`, `reasoningTrace.trace`) nests at
 * most `MAX_JSON_DEPTH` levels: deeper is 400 naming the field on every adapter (PostgreSQL's
 * `jsonb` parser had answered a 20,000-level trace with "stack depth limit exceeded", a 500), and
 * the deepest allowed document is stored as sent.
 */
import assert from "node:assert/strict";
import { LeaseReplySchema, MAX_JSON_DEPTH } from "../../routes/validators/validators_api.ts";
import { nestsAtMost } from "../../routes/http/validation.ts";
import { adapterTest } from "../support/adapters.ts";
import {
  LEASE,
  type Loop,
  openLoop,
  signedInit,
  submissionFor,
  SUBMIT,
  testSigner,
} from "../support/validator_loop.ts";

const VALIDATOR = testSigner("validator-0");

/** An object `levels` deep: `{ "d": { "d": … [] } }` (the innermost array is the last level). */
function nested(levels: number): Record<string, unknown> {
  let value: unknown = [];
  for (let level = 1; level < levels; level++) value = { d: value };
  return value as Record<string, unknown>;
}

async function submit(loop: Loop, body: unknown): Promise<Response> {
  const init = signedInit(VALIDATOR, "POST", SUBMIT, {
    nowMs: loop.service.clock.now(),
    body: JSON.stringify(body),
  });
  return await loop.service.request(SUBMIT, init);
}

/** The fields a 400 `invalid_request` names. */
async function fieldsOf(response: Response): Promise<string[]> {
  const body = await response.json();
  assert.equal(body.error.code, "invalid_request");
  return body.error.details.fields.map((entry: { field: string }) => entry.field);
}

Deno.test("nestsAtMost counts objects and arrays, not scalars, and walks 200,000 levels without recursion", () => {
  assert.equal(nestsAtMost("text", 0), true);
  assert.equal(nestsAtMost({ a: 1, b: "x" }, 1), true);
  assert.equal(nestsAtMost({ a: [1] }, 1), false);
  assert.equal(nestsAtMost(nested(64), 64), true);
  assert.equal(nestsAtMost(nested(65), 64), false);
  assert.equal(nestsAtMost(JSON.parse("[".repeat(200_000) + "]".repeat(200_000)), 64), false);
});

adapterTest(
  "a submission nesting its trace or metadata deeper than the limit is 400 naming the field; at the limit it is stored",
  async (adapter) => {
    const loop = await openLoop({ validators: [VALIDATOR], miners: 1, events: 1, storage: adapter.storage });
    await using _service = loop.service;
    const leaseInit = signedInit(VALIDATOR, "GET", LEASE, { nowMs: loop.service.clock.now() });
    const leased = LeaseReplySchema.parse(await (await loop.service.request(LEASE, leaseInit)).json())
      .assignment!;
    const event = loop.events[0]!;
    const id = leased.agentPredictionId;

    const deepTrace = submissionFor(id, event);
    deepTrace.reasoningTrace.trace = nested(20_000) as never;
    const traceRefused = await submit(loop, deepTrace);
    assert.equal(traceRefused.status, 400);
    assert.deepEqual(await fieldsOf(traceRefused), ["reasoningTrace.trace"]);

    const deepMetadata = submissionFor(id, event, {
      executionMetadata: { predictionIsInvalid: false, steps: nested(MAX_JSON_DEPTH) },
    });
    const metadataRefused = await submit(loop, deepMetadata);
    assert.equal(metadataRefused.status, 400);
    assert.deepEqual(await fieldsOf(metadataRefused), ["prediction.executionMetadata"]);
    assert.equal(await loop.service.storage.assignments.getPrediction(id), null);

    const atLimit = submissionFor(id, event, {
      executionMetadata: { predictionIsInvalid: false, steps: nested(MAX_JSON_DEPTH - 1) },
    });
    atLimit.reasoningTrace.trace = nested(MAX_JSON_DEPTH) as never;
    const stored = await submit(loop, atLimit);
    assert.equal(stored.status, 200, await stored.clone().text());
    assert.deepEqual(await loop.service.storage.assignments.getTrace(id), atLimit.reasoningTrace);
  },
);
