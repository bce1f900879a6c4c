/** The `CompletionDesk` when something fails: the hold is released and nothing is charged. */
import assert from "node:assert/strict";
import type { AskOrg } from "../../actors/billing/mod.ts";
import type { ProviderAdapter } from "../../actors/gateway/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { allLedgerEntries } from "../support/ledger.ts";
import { assertAccount, billedCall, CALL, code, deskOf, ORG, payer, world } from "./billing_world.ts";

for (
  const [mode, answer] of [
    ["server_error", "upstream_error"],
    ["slow", "upstream_timeout"],
    ["rate_limited", "unavailable"],
    ["garbage", "upstream_error"],
    ["unauthorized", "upstream_error"],
  ] as const
) {
  Deno.test(`a provider failure (${mode}) releases the hold and charges nothing: ${answer}`, async () => {
    await using w = await world(1_000n);
    w.fake.respondNext(mode);
    await assert.rejects(billedCall(w, `req_${mode}`), code(answer));
    assert.equal(w.fake.requests.length, 1);
    await assertAccount(w, 1_000n);
    assert.equal((await allLedgerEntries(w.storage.billing, ORG)).length, 1); // the credit alone
  });
}

Deno.test("a provider refusing the operator's key is logged at error level, without the key", async () => {
  await using w = await world(1_000n);
  w.fake.respondNext("unauthorized");
  await assert.rejects(billedCall(w, "req_401"), code("upstream_error"));
  const errors = w.logs.filter((line) => line.level === "error");
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.failure, "account");
  assert.equal(errors[0]?.status, 401);
  assert.ok(!JSON.stringify(w.logs).includes("sk-test-openai"));
});

Deno.test("a reserve that committed after its caller gave up is released", async () => {
  await using w = await world(1_000n);
  const askOrg: AskOrg = async (orgId, message, options) => {
    const reply = await w.ask(orgId, message, options);
    if (message.type !== "reserve") return reply;
    throw new ServiceError("unavailable", "Timed out waiting for the org", { retryAfterSeconds: 1 });
  };
  const call = deskOf(w, { askOrg }).complete(CALL, payer("req_lost"));
  await assert.rejects(call, code("unavailable"));
  assert.equal(w.fake.requests.length, 0);
  await assertAccount(w, 1_000n);
});

Deno.test("a reserve whose caller stops waiting (503 from the runtime) leaves no hold", async () => {
  await using w = await world(1_000n);
  const askOrg: AskOrg = (orgId, message, options) => {
    // The release is must-complete: queued behind the reserve, so it runs after it whether the
    // reserve ran or was skipped.
    if (message.type !== "reserve") return w.ask(orgId, message, options);
    const caller = new AbortController();
    const reply = w.ask(orgId, message, { signal: caller.signal });
    caller.abort();
    return reply;
  };
  const call = deskOf(w, { askOrg }).complete(CALL, payer("req_gone"));
  await assert.rejects(call, code("unavailable"));
  assert.equal(w.fake.requests.length, 0);
  await assertAccount(w, 1_000n);
});

Deno.test("a release that fails is logged and never hides the provider's failure", async () => {
  await using w = await world(1_000n, {}, { holdTtlMs: 1_000 });
  w.fake.respondNext("server_error");
  const askOrg: AskOrg = (orgId, message, options) =>
    message.type === "release" ? Promise.reject(new Error("storage down")) : w.ask(orgId, message, options);
  const call = deskOf(w, { askOrg }).complete(CALL, payer("req_stuck"));
  await assert.rejects(call, code("upstream_error"));
  assert.ok(w.logs.some((line) => line.level === "error" && /cannot release hold/.test(line.msg)));
  // The hold stays until it expires; then the next reserve frees it, and nothing was charged.
  w.clock.advance(1_000);
  await w.ask(ORG, { type: "reserve", amountMicro: 1_000n, holdId: "h_next" });
  await w.ask(ORG, { type: "release", holdId: "h_next" });
  await assertAccount(w, 1_000n);
});

Deno.test("an adapter failing in an unexpected way is a 502, never a 500, and releases the hold", async () => {
  await using w = await world(1_000n);
  const broken: ProviderAdapter = { complete: () => Promise.reject(new RangeError("bug in an adapter")) };
  await assert.rejects(billedCall(w, "req_bug", { adapter: broken }), code("upstream_error"));
  await assertAccount(w, 1_000n);
});
