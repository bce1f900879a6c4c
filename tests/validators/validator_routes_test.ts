import assert from "node:assert/strict";
import { base64 } from "@scure/base";
const bytesToUtf8 = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
import { LeaseReplySchema, SubmissionAckSchema } from "../../routes/validators/validators_api.ts";
import { errorCode } from "../support/access.ts";
import { putEvents, resolved } from "../support/events.ts";
import {
  agentCode,
  LEASE,
  type Loop,
  openLoop,
  signedInit,
  submissionFor,
  SUBMIT,
  testSigner,
} from "../support/validator_loop.ts";

const VALIDATOR = testSigner("validator-0");
const OTHER_VALIDATOR = testSigner("validator-1");
const MINERS = [testSigner("miner-0"), testSigner("miner-1")];

async function lease(loop: Loop, signer = VALIDATOR) {
  const response = await loop.service.request(
    LEASE,
    signedInit(signer, "GET", LEASE, { nowMs: loop.service.clock.now() }),
  );
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  return LeaseReplySchema.parse(body);
}

async function submit(loop: Loop, body: unknown, signer = VALIDATOR): Promise<Response> {
  const text = JSON.stringify(body);
  return await loop.service.request(
    SUBMIT,
    signedInit(signer, "POST", SUBMIT, { nowMs: loop.service.clock.now(), body: text }),
  );
}

Deno.test("a validator leases a miner's agent and an event in the shape docs/validators.md gives, then submits, and the assignment is submitted", async () => {
  const loop = await openLoop({ validators: [VALIDATOR, OTHER_VALIDATOR], miners: MINERS, events: 2 });
  await using _service = loop.service;
  const reply = await lease(loop);
  assert.ok(reply.assignment, "an assignment is leased");
  const leased = reply.assignment;
  assert.deepEqual(Object.keys(leased).toSorted(), [
    "agent",
    "agentPredictionId",
    "event",
    "leaseExpiresAt",
    "leasedAt",
    "miner",
    "status",
  ]);
  assert.equal(leased.status, "in_progress");
  assert.equal(Date.parse(leased.leaseExpiresAt) - Date.parse(leased.leasedAt), 600_000);
  const minerIndex = MINERS.findIndex((miner) => miner.hotkey === leased.miner.hotkey);
  assert.ok(minerIndex >= 0);
  assert.equal(leased.miner.uid, 2 + minerIndex);
  assert.equal(bytesToUtf8(base64.decode(leased.agent.code)), agentCode(`miner-${minerIndex}`));
  const event = loop.events.find((candidate) => candidate.id === leased.event.id)!;
  assert.deepEqual(leased.event, event, "the event as /v1/events renders it");

  const response = await submit(loop, submissionFor(leased.agentPredictionId, event));
  assert.equal(response.status, 200);
  assert.deepEqual(SubmissionAckSchema.parse(await response.json()), {
    ok: true,
    agentPredictionId: leased.agentPredictionId,
    status: "queued",
  });
  const stored = await loop.service.storage.assignments.getPrediction(leased.agentPredictionId);
  assert.ok(stored);
  assert.equal(stored.validatorHotkey, VALIDATOR.hotkey);
  assert.equal(stored.predictedAtMs, loop.service.clock.now(), "predictedAt is the server's receipt time");
  assert.deepEqual(
    stored.outcomePricesAtPrediction,
    event.currentOutcomePrices,
    "the lease snapshot's prices",
  );
  assert.deepEqual(
    stored.reported.outcomePricesAtPrediction,
    submissionFor("", event).prediction.outcomePricesAtPrediction,
  );
  assert.deepEqual(stored.validation, {
    isValid: true,
    reasons: [],
    rawObserved: { prediction: event.outcomes[0]!.outcomeId, confidence: "0.7" },
  });
  assert.deepEqual(await loop.service.storage.assignments.getTrace(leased.agentPredictionId), {
    schemaVersion: "1.0",
    trace: { steps: ["looked at the market"] },
  });
  assert.equal((await loop.service.storage.assignments.get(leased.agentPredictionId))?.status, "submitted");
});

Deno.test("with every assignment leased the next lease is 200 with none_available", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: MINERS.slice(0, 1), events: 2 });
  await using _service = loop.service;
  assert.ok((await lease(loop)).assignment);
  assert.ok((await lease(loop)).assignment);
  assert.deepEqual(await lease(loop), { assignment: null, reason: "none_available" });
});

Deno.test("an invalid prediction is stored with its reasons, not refused; a retry gets the same ack and stores nothing twice", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: MINERS.slice(0, 1), events: 1 });
  await using _service = loop.service;
  const leased = (await lease(loop)).assignment!;
  const event = loop.events[0]!;
  const body = submissionFor(leased.agentPredictionId, event, {
    confidence: 1.5,
    outcomeProbabilities: { [event.outcomes[0]!.outcomeId]: 0.9, [event.outcomes[1]!.outcomeId]: 0.3 },
    executionMetadata: { predictionIsInvalid: true },
  });
  const first = await submit(loop, body);
  assert.equal(first.status, 200);
  const firstAck = await first.json();
  const stored = await loop.service.storage.assignments.getPrediction(leased.agentPredictionId);
  assert.deepEqual(stored?.validation.reasons, [
    "agent_reported_invalid",
    "probabilities_do_not_sum_to_one",
    "confidence_out_of_range",
  ]);
  assert.equal(stored?.validation.isValid, false);
  loop.service.clock.advance(1_000);
  const retry = await submit(loop, submissionFor(leased.agentPredictionId, event));
  assert.equal(retry.status, 200);
  assert.deepEqual(await retry.json(), firstAck);
  const after = await loop.service.storage.assignments.getPrediction(leased.agentPredictionId);
  assert.deepEqual(after, stored, "the retry changed nothing");
});

Deno.test("a prediction is judged against its event as stored at submission: resolved after the lease, it is late", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: MINERS.slice(0, 1), events: 1 });
  await using _service = loop.service;
  const leased = (await lease(loop)).assignment!;
  const event = loop.events[0]!;
  await putEvents(
    loop.service.storage,
    [resolved(event, loop.service.clock.now())],
    loop.service.clock.now(),
  );
  loop.service.clock.advance(1_000);
  const response = await submit(loop, submissionFor(leased.agentPredictionId, event));
  assert.equal(response.status, 200);
  const stored = await loop.service.storage.assignments.getPrediction(leased.agentPredictionId);
  assert.deepEqual(stored?.validation.reasons, ["late_prediction"]);
  assert.equal((await loop.service.storage.assignments.get(leased.agentPredictionId))?.status, "submitted");
});

Deno.test("submissions: unknown id 404, a non-holder 409 with nothing stored, a body off the documented shape 400, a trace over 256 KiB 413", async () => {
  const loop = await openLoop({
    validators: [VALIDATOR, OTHER_VALIDATOR],
    miners: MINERS.slice(0, 1),
    events: 1,
  });
  await using _service = loop.service;
  const leased = (await lease(loop)).assignment!;
  const event = loop.events[0]!;
  const unknown = await submit(loop, submissionFor("ap_00000000000000000000000000000000", event));
  assert.equal(unknown.status, 404);
  assert.equal(await errorCode(unknown), "not_found");
  const stranger = await submit(loop, submissionFor(leased.agentPredictionId, event), OTHER_VALIDATOR);
  assert.equal(stranger.status, 409);
  assert.equal(await errorCode(stranger), "lease_not_held");
  assert.equal(await loop.service.storage.assignments.getPrediction(leased.agentPredictionId), null);
  assert.equal(await loop.service.storage.assignments.getTrace(leased.agentPredictionId), null);
  const badShapes = [
    { ...submissionFor(leased.agentPredictionId, event), extra: 1 },
    submissionFor(leased.agentPredictionId, event, { predictionType: "scalar" }),
    submissionFor(leased.agentPredictionId, event, { confidence: "high" }),
    submissionFor(leased.agentPredictionId, event, { submittedAt: "yesterday" }),
    { agentPredictionId: leased.agentPredictionId, prediction: submissionFor("", event).prediction },
  ];
  for (const body of badShapes) {
    const response = await submit(loop, body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(await errorCode(response), "invalid_request");
  }
  const huge = submissionFor(leased.agentPredictionId, event);
  huge.reasoningTrace.trace = { text: "x".repeat(256 * 1024) } as never;
  const tooLarge = await submit(loop, huge);
  assert.equal(tooLarge.status, 413);
  assert.equal(await errorCode(tooLarge), "payload_too_large");
  assert.equal(await loop.service.storage.assignments.getPrediction(leased.agentPredictionId), null);
});

Deno.test("a signed submission without a JSON content type is 415; malformed JSON is 400 (after the signature)", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: MINERS.slice(0, 1), events: 1 });
  await using _service = loop.service;
  const nowMs = loop.service.clock.now();
  const body = JSON.stringify(submissionFor("ap_00000000000000000000000000000000", loop.events[0]!));
  const init = signedInit(VALIDATOR, "POST", SUBMIT, { nowMs, body });
  const untyped = {
    ...init,
    headers: { ...init.headers as Record<string, string>, "content-type": "text/plain" },
  };
  const refused = await loop.service.request(SUBMIT, untyped);
  assert.equal(refused.status, 415);
  assert.equal(await errorCode(refused), "unsupported_media_type");
  const malformed = await loop.service.request(
    SUBMIT,
    signedInit(VALIDATOR, "POST", SUBMIT, { nowMs, body: "{" }),
  );
  assert.equal(malformed.status, 400);
  assert.equal(await errorCode(malformed), "invalid_request");
  const tampered = { ...init, body: body.replace("0.7", "0.8") };
  const forged = await loop.service.request(SUBMIT, tampered);
  assert.equal(forged.status, 401);
  assert.equal(await errorCode(forged), "invalid_signature");
});
