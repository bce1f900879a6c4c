/**
 * The relay checks of the escape suite can fail: what reached the gateway's route is told apart by
 * check, and a call forwarded that must not be, or calls beyond the relay's limits, are harm.
 */
import assert from "node:assert/strict";
import { RELAY_LIMITS } from "../../../../scripts/validate/relay/mod.ts";
import {
  freshRelaySeen,
  gatewayStandIn,
  noteRelayCall,
  OTHER_LEASE,
  OTHER_MINER,
  relayHarm,
  type RelaySeen,
} from "../../../../scripts/validate/sandbox/escape_relay.ts";

const MARKER = "0badcafe";
const OWN_MINER = "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty";

function callBody(tag: string, lease = "ap_own"): string {
  const messages = [{ role: "user", content: `fgw-escape-${MARKER} ${tag}` }];
  return JSON.stringify({
    provider: "echo",
    model: "echo-1",
    messages,
    maxTokens: 16,
    agentPredictionId: lease,
  });
}

function noted(seen: RelaySeen, tag: string, options: { miner?: string; lease?: string } = {}): () => void {
  return noteRelayCall(seen, MARKER, {
    minerHotkey: options.miner ?? OWN_MINER,
    body: callBody(tag, options.lease),
  });
}

Deno.test("a relay check passes when only its run's own calls, within the limits, reached the route", () => {
  const seen = freshRelaySeen();
  noted(seen, "relay-other-miner/header")();
  noted(seen, "relay-other-lease/query")();
  assert.deepEqual(relayHarm(seen, "relay-other-miner"), []);
  assert.deepEqual(relayHarm(seen, "relay-other-lease"), []);
  assert.deepEqual(seen.calls.map((call) => [call.check, call.variant]), [
    ["relay-other-miner", "header"],
    ["relay-other-lease", "query"],
  ]);
});

Deno.test("a relay check finds a call forwarded for another miner or lease, or one that should have been refused", () => {
  const seen = freshRelaySeen();
  noted(seen, "relay-other-miner/body")();
  noted(seen, "relay-other-miner/header", { miner: OTHER_MINER })();
  noted(seen, "relay-other-lease/query", { lease: OTHER_LEASE })();
  assert.equal(relayHarm(seen, "relay-other-miner").length, 2);
  assert.match(relayHarm(seen, "relay-other-lease").join(), /another lease/);
});

Deno.test("a relay check finds calls beyond the run's limit or too many at once, and a refusal that never reached the route", () => {
  const seen = freshRelaySeen();
  const open = Array.from(
    { length: RELAY_LIMITS.maxInFlight + 1 },
    (_, index) => noted(seen, `relay-burst/${index}`),
  );
  open.forEach((done) => done());
  for (let index = 0; index < RELAY_LIMITS.maxCalls; index++) noted(seen, `relay-burst/more-${index}`)();
  const harm = relayHarm(seen, "relay-burst").join("; ");
  assert.match(harm, /beyond the run's 20/);
  assert.match(harm, /5 calls were at the gateway at once/);
  assert.deepEqual(relayHarm(seen, "relay-refused", { reached: true }), ["no call reached the gateway"]);
});

Deno.test("the self-test's stand-in answers echo calls and refuses an unknown provider as the service does", async () => {
  const seen = freshRelaySeen();
  const standIn = gatewayStandIn(seen, MARKER);
  const post = (body: string) =>
    standIn("http://gateway.self-test/v1/gateway/validator/completions", {
      method: "POST",
      headers: { "x-miner-hotkey": OWN_MINER },
      body: new TextEncoder().encode(body),
    });
  const answered = await post(callBody("relay-refused/echo"));
  assert.equal(answered.status, 200);
  assert.equal((await answered.json()).output, `fgw-escape-${MARKER} relay-refused/echo`);
  const refused = await post(callBody("relay-refused/x").replace('"echo"', '"nope"'));
  assert.equal(refused.status, 400);
  const body = await refused.json();
  assert.deepEqual([body.error.code, body.error.message, body.error.details.fields[0].field], [
    "invalid_request",
    "Unknown provider",
    "provider",
  ]);
  assert.deepEqual(seen.calls.map((call) => call.minerHotkey), [OWN_MINER, OWN_MINER]);
  assert.equal(seen.inFlight.get("relay-refused"), 0);
});
