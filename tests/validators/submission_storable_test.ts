/**
 * What PostgreSQL cannot store is refused with 400 naming the field on every adapter (it had
 * answered 500 there, 200 on Deno KV): a submission's free-form JSON (`prediction.executionMetadata`,
 * `reasoningTrace.trace`) nested deeper than `MAX_JSON_DEPTH` levels ("stack depth limit
 * exceeded"), and a string or key holding NUL or a lone surrogate anywhere in the body. The deepest
 * allowed document is stored as sent.
 */
import assert from "node:assert/strict";
import { LeaseReplySchema, MAX_JSON_DEPTH } from "../../routes/validators/validators_api.ts";
import { nestsAtMost, refuseUnstorableText } from "../../routes/http/validation.ts";
import { adapterTest, type AdapterUnderTest } from "../support/adapters.ts";
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

/** A loop on `adapter` with its one assignment leased by VALIDATOR. */
async function leasedLoop(adapter: AdapterUnderTest) {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 1, events: 1, storage: adapter.storage });
  const leaseInit = signedInit(VALIDATOR, "GET", LEASE, { nowMs: loop.service.clock.now() });
  const reply = LeaseReplySchema.parse(await (await loop.service.request(LEASE, leaseInit)).json());
  return { loop, event: loop.events[0]!, id: reply.assignment!.agentPredictionId };
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
    const { loop, event, id } = await leasedLoop(adapter);
    await using _service = loop.service;

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

Deno.test("refuseUnstorableText names the first string or key with NUL or a lone surrogate by its path", () => {
  const fieldOf = (value: unknown): string | null => {
    try {
      refuseUnstorableText(value);
      return null;
    } catch (error) {
      return (error as { details: { fields: { field: string }[] } }).details.fields[0]!.field;
    }
  };
  assert.equal(fieldOf({ a: ["ok", { b: "fine \u{1F600}" }] }), null);
  assert.equal(fieldOf({ a: ["ok", { b: "x\u0000" }] }), "a.1.b");
  assert.equal(fieldOf({ a: { "k\u0000": 1 } }), "a.k\u0000");
  assert.equal(fieldOf({ t: "a\ud800b" }), "t");
  assert.equal(fieldOf({ t: "a\udc00" }), "t");
});

adapterTest(
  "a submission with NUL or a lone surrogate in any string or key is 400 naming the field, nothing stored",
  async (adapter) => {
    const { loop, event, id } = await leasedLoop(adapter);
    await using _service = loop.service;
    const cases: [Record<string, unknown>, string][] = [];
    const traced = (trace: Record<string, unknown>) => {
      const body = submissionFor(id, event);
      body.reasoningTrace.trace = trace as never;
      return body;
    };
    cases.push([traced({ t: "a\u0000b" }), "reasoningTrace.trace.t"]);
    cases.push([traced({ t: "a\ud800b" }), "reasoningTrace.trace.t"]);
    cases.push([
      submissionFor(id, event, { executionMetadata: { predictionIsInvalid: false, "k\u0000": 1 } }),
      "prediction.executionMetadata.k\u0000",
    ]);
    cases.push([
      submissionFor(id, event, { predictedOutcomeId: "x\u0000" }),
      "prediction.predictedOutcomeId",
    ]);
    const schema = submissionFor(id, event);
    schema.reasoningTrace.schemaVersion = "1\u0000";
    cases.push([schema, "reasoningTrace.schemaVersion"]);
    for (const [body, field] of cases) {
      const refused = await submit(loop, body);
      assert.equal(refused.status, 400, field);
      assert.deepEqual(await fieldsOf(refused), [field]);
    }
    assert.equal(await loop.service.storage.assignments.getPrediction(id), null);
  },
);
