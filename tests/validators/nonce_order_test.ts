/**
 * The order of docs/signatures.md holds although the lease's and the submission's nonce is used in the
 * store's step: a request the route refuses before that step (a body off the route's schema, an unknown id, a
 * trace too large, a query parameter) still uses its nonce up and counts in the rate window, and a
 * refused nonce or a count over the rate answers first (nonce_reused, rate_limited), as when the
 * nonce was used before the route ran.
 */
import assert from "node:assert/strict";
import { errorCode } from "../support/access.ts";
import {
  LEASE,
  type Loop,
  openLoop,
  signedInit,
  submissionFor,
  SUBMIT,
  testSigner,
} from "../support/validator_loop.ts";

const VALIDATOR = testSigner("order-validator-0");

/** Sends the same signed request twice: the first answer's status and code, then the replay's. */
async function sendTwice(loop: Loop, path: string, init: RequestInit) {
  const answers = [];
  for (let copy = 0; copy < 2; copy++) {
    const response = await loop.service.request(path, init);
    answers.push([response.status, response.status === 200 ? "ok" : await errorCode(response)]);
  }
  return answers;
}

function signedSubmission(loop: Loop, body: unknown): RequestInit {
  return signedInit(VALIDATOR, "POST", SUBMIT, {
    nowMs: loop.service.clock.now(),
    body: JSON.stringify(body),
  });
}

Deno.test("a request the route refuses before its store step still uses its nonce: the replay is nonce_reused", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 1, events: 1 });
  await using _service = loop.service;
  const event = loop.events[0]!;
  const refusedByRoute: [string, string, RequestInit, number, string][] = [
    [
      "a body off the documented shape",
      SUBMIT,
      signedSubmission(loop, { ...submissionFor("ap_x", event), extra: 1 }),
      400,
      "invalid_request",
    ],
    [
      "an unknown id",
      SUBMIT,
      signedSubmission(loop, submissionFor("ap_00000000000000000000000000000000", event)),
      404,
      "not_found",
    ],
    [
      "a trace over 256 KiB",
      SUBMIT,
      signedSubmission(loop, {
        ...submissionFor("ap_x", event),
        reasoningTrace: { schemaVersion: "1.0", trace: { text: "x".repeat(256 * 1024) } },
      }),
      413,
      "payload_too_large",
    ],
    [
      "a query parameter",
      `${LEASE}?x=1`,
      signedInit(VALIDATOR, "GET", `${LEASE}?x=1`, { nowMs: loop.service.clock.now() }),
      400,
      "invalid_request",
    ],
  ];
  for (const [what, path, init, status, code] of refusedByRoute) {
    assert.deepEqual(await sendTwice(loop, path, init), [[status, code], [401, "nonce_reused"]], what);
  }
  assert.equal(await loop.service.storage.assignments.countLive(VALIDATOR.hotkey), 0, "nothing leased");
});

Deno.test("over FGW_VALIDATOR_RPM, a request the route would refuse is 429 rate_limited first, its nonce used up", async () => {
  const loop = await openLoop({
    validators: [VALIDATOR],
    miners: 1,
    events: 2,
    env: { FGW_VALIDATOR_RPM: "2" },
  });
  await using _service = loop.service;
  const lease = signedInit(VALIDATOR, "GET", LEASE, { nowMs: loop.service.clock.now() });
  assert.deepEqual(await sendTwice(loop, LEASE, lease), [[200, "ok"], [401, "nonce_reused"]]);
  const badBody = signedSubmission(loop, { agentPredictionId: "ap_x" });
  const over = await loop.service.request(SUBMIT, badBody);
  assert.equal(over.status, 429);
  assert.equal(await errorCode(over), "rate_limited");
  const retryAfter = Number(over.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  const replay = await loop.service.request(SUBMIT, badBody);
  assert.equal(await errorCode(replay), "nonce_reused", "a replay is refused first, whatever the count");
  const overLease = await loop.service.request(
    LEASE,
    signedInit(VALIDATOR, "GET", LEASE, { nowMs: loop.service.clock.now() }),
  );
  assert.equal(await errorCode(overLease), "rate_limited");
  assert.equal(
    await loop.service.storage.assignments.countLive(VALIDATOR.hotkey),
    1,
    "the lease over the rate claimed nothing",
  );
});
