/** A validator loop whose miners spent on two leases (one submitted, one still open), for the spend reports. */
import assert from "node:assert/strict";
import { ECHO_CALL } from "../gateway/gateway_service.ts";
import { addCredits, issueKey } from "./access.ts";
import {
  leaseAs,
  type LeasedWork,
  type Loop,
  openLoop,
  signedInit,
  submitAs,
  testSigner,
} from "./validator_loop.ts";

/** The one validator of the loop; it leases the work and makes the LLM calls. */
export const SPEND_VALIDATOR = testSigner("validator-0");
const PATH = "/v1/gateway/validator/completions";

/** A loop of `SPEND_VALIDATOR`, two miners and one event, its service started with `env`. */
export function openSpendLoop(env: Record<string, string>): Promise<Loop> {
  return openLoop({ validators: [SPEND_VALIDATOR], miners: 2, events: 1, env });
}

/** One LLM call of the validator for `work` (answered 200). */
export async function callFor(loop: Loop, work: LeasedWork): Promise<void> {
  const body = JSON.stringify({ ...ECHO_CALL, agentPredictionId: work.agentPredictionId });
  const init = signedInit(SPEND_VALIDATOR, "POST", PATH, {
    nowMs: loop.service.clock.now(),
    body,
    minerHotkey: work.minerHotkey,
  });
  const response = await loop.service.request(PATH, init);
  assert.equal(response.status, 200, await response.text());
}

/** What `spendOnTwoLeases` made: a `billing:read` key, the two leases, and the day they fall on. */
export interface TwoLeases {
  apiKey: string;
  /** Two calls, then submitted. */
  submitted: LeasedWork;
  /** One call, not submitted. */
  open: LeasedWork;
  /** `YYYY-MM-DD` (UTC) of the service's clock. */
  today: string;
}

/** Credits the org, then two leases of the validator: two calls and a submission on one, one call on the other. */
export async function spendOnTwoLeases(loop: Loop): Promise<TwoLeases> {
  const { service } = loop;
  await addCredits(service.request, loop.orgId, "1000000", "miners-credit");
  const { apiKey } = await issueKey(service.request, loop.orgId, { scopes: ["billing:read"] });
  const submitted = await leaseAs(service, SPEND_VALIDATOR);
  const open = await leaseAs(service, SPEND_VALIDATOR);
  await callFor(loop, submitted);
  await callFor(loop, submitted);
  await callFor(loop, open);
  assert.equal(await submitAs(service, SPEND_VALIDATOR, submitted), 200);
  const today = new Date(service.clock.now()).toISOString().slice(0, 10);
  return { apiKey, submitted, open, today };
}
