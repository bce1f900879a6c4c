import assert from "node:assert/strict";
import { type Signer, signerFromSecretHex, signRequest } from "../../actors/validators/mod.ts";
import { ADMIN_TOKEN, HOTKEY_A } from "../support/access.ts";
import {
  agentCode,
  metagraphWith,
  minerOrg,
  SUBMIT_AGENT,
  syncMetagraph,
  uploadInit,
} from "../support/agents.ts";
import { openTestService, type TestService } from "../support/test_service.ts";

const ENV = { FGW_ADMIN_TOKEN: ADMIN_TOKEN };
/** The interop vectors' signer (tests/validators/golden/signatures-v1.json): its hotkey is HOTKEY_A. */
const MINER = signerFromSecretHex("11".repeat(32));
const OTHER = signerFromSecretHex("22".repeat(32));
const STRANGER = signerFromSecretHex("33".repeat(32));

const METAGRAPH = metagraphWith([MINER.hotkey, OTHER.hotkey]);

/** A service whose synced metagraph holds MINER and OTHER; MINER is registered to a funded org. */
async function signedService(): Promise<TestService> {
  const service = await openTestService({ env: ENV, metagraphSource: METAGRAPH });
  await syncMetagraph(service);
  await minerOrg(service.request, [MINER.hotkey]);
  return service;
}

/** The upload of `body`, signed by `signer` now (or with the given options). */
function signed(
  service: TestService,
  signer: Signer,
  body: string,
  options: { nowMs?: number; nonce?: string; role?: "miner" | "validator" } = {},
): Record<string, string> {
  return signRequest(signer, { method: "POST", url: SUBMIT_AGENT, body }, {
    role: options.role ?? "miner",
    nowMs: options.nowMs ?? service.clock.now(),
    ...(options.nonce ? { nonce: options.nonce } : {}),
  });
}

async function send(service: TestService, body: string, headers: Record<string, string>): Promise<Response> {
  return await service.request(SUBMIT_AGENT, uploadInit(body, headers));
}

async function expectError(
  response: Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  const body = JSON.parse(text);
  assert.equal(body.error.code, code, text);
  return body.error;
}

Deno.test("a miner-signed upload is the signer's version (201)", async () => {
  await using service = await signedService();
  assert.equal(MINER.hotkey, HOTKEY_A);
  const body = JSON.stringify({ code: agentCode("signed"), name: "signed" });
  const response = await send(service, body, signed(service, MINER, body));
  const json = await response.json();
  assert.equal(response.status, 201, JSON.stringify(json));
  assert.equal(json.minerHotkey, MINER.hotkey);
  assert.equal(json.name, "signed");
  assert.equal(response.headers.get("x-ratelimit-limit"), null, "no API key, no key rate headers");
});

Deno.test("a metagraph never synced or stale fails a signed upload closed with 503 metagraph_unavailable", async () => {
  await using service = await openTestService({
    env: ENV,
    metagraphSource: METAGRAPH,
  });
  await minerOrg(service.request, [MINER.hotkey]);
  const body = JSON.stringify({ code: agentCode() });
  const never = await send(service, body, signed(service, MINER, body));
  assert.ok(never.headers.get("retry-after"));
  await expectError(never, 503, "metagraph_unavailable");
  await syncMetagraph(service);
  service.clock.advance(3 * 300_000 + 1);
  const stale = await expectError(
    await send(service, body, signed(service, MINER, body)),
    503,
    "metagraph_unavailable",
  );
  assert.deepEqual(stale["details"], { status: "stale" });
  // The key path does not depend on the metagraph.
  const { apiKey } = await minerOrg(service.request, [OTHER.hotkey]);
  const keyed = await send(service, body, { authorization: `Bearer ${apiKey}` });
  assert.equal(keyed.status, 201, await keyed.text());
});

Deno.test("by default the upload's nonce is used up in the shared NonceStore: taken once, its replay refused", async () => {
  await using service = await openTestService({ env: ENV, metagraphSource: METAGRAPH });
  await syncMetagraph(service);
  await minerOrg(service.request, [MINER.hotkey]);
  const body = JSON.stringify({ code: agentCode() });
  const headers = signed(service, MINER, body);
  assert.equal((await send(service, body, headers)).status, 201);
  await expectError(await send(service, body, headers), 401, "nonce_reused");
  assert.equal((await service.storage.agents.listVersions(MINER.hotkey)).length, 1);
});

Deno.test("a replayed nonce gets 401 nonce_reused; a signature that fails does not use the nonce up", async () => {
  await using service = await signedService();
  const body = JSON.stringify({ code: agentCode("replay") });
  const headers = signed(service, MINER, body);
  const tampered = JSON.stringify({ code: agentCode("tampered") });
  await expectError(await send(service, tampered, headers), 401, "invalid_signature");
  assert.equal((await send(service, body, headers)).status, 201);
  await expectError(await send(service, body, headers), 401, "nonce_reused");
});

Deno.test("the signer must be in the metagraph (403) and registered to an org (403 miner_not_registered)", async () => {
  await using service = await signedService();
  const body = JSON.stringify({ code: agentCode() });
  const stranger = await expectError(
    await send(service, body, signed(service, STRANGER, body)),
    403,
    "hotkey_not_in_metagraph",
  );
  assert.match(String(stranger["message"]), /metagraph/);
  const unregistered = await expectError(
    await send(service, body, signed(service, OTHER, body)),
    403,
    "miner_not_registered",
  );
  assert.deepEqual(unregistered["details"], { minerHotkey: OTHER.hotkey });
  // The signature is checked before the registration: a bad one is 401 whoever signs.
  const forged = { ...signed(service, OTHER, body), "x-miner-signature": "0x" + "ab".repeat(64) };
  await expectError(await send(service, body, forged), 401, "invalid_signature");
});

Deno.test("headers, the window and the domain are checked: 401 missing, 400 malformed, 401 stale, 401 validator domain", async () => {
  await using service = await signedService();
  const body = JSON.stringify({ code: agentCode() });
  const { "x-miner-signature": _dropped, ...partial } = signed(service, MINER, body);
  const missing = await expectError(await send(service, body, partial), 401, "unauthenticated");
  assert.deepEqual(missing["details"], { missing: ["x-miner-signature"] });
  const shortNonce = { ...signed(service, MINER, body), "x-miner-nonce": "short" };
  const malformed = await expectError(await send(service, body, shortNonce), 400, "invalid_request");
  assert.match(JSON.stringify(malformed["details"]), /x-miner-nonce/);
  const stale = signed(service, MINER, body, { nowMs: service.clock.now() - 30_001 });
  await expectError(await send(service, body, stale), 401, "timestamp_out_of_window");
  const edge = signed(service, MINER, body, { nowMs: service.clock.now() + 30_000 });
  assert.equal((await send(service, body, edge)).status, 201, "the window's edge is inside");
  // A validator-domain signature under miner header names does not verify on the miner route.
  const asValidator = signed(service, MINER, body, { role: "validator" });
  const renamed = Object.fromEntries(
    Object.entries(asValidator).map(([name, value]) => [name.replace("x-validator-", "x-miner-"), value]),
  );
  await expectError(
    await send(service, body, { ...renamed, "x-miner-hotkey": MINER.hotkey }),
    401,
    "invalid_signature",
  );
});

Deno.test("a signed upload naming another miner in the body gets 400 naming minerHotkey", async () => {
  await using service = await signedService();
  const body = JSON.stringify({ code: agentCode(), minerHotkey: OTHER.hotkey });
  const error = await expectError(
    await send(service, body, signed(service, MINER, body)),
    400,
    "invalid_request",
  );
  assert.deepEqual((error["details"] as { fields: { field: string }[] }).fields.map((f) => f.field), [
    "minerHotkey",
  ]);
  const own = JSON.stringify({ code: agentCode(), minerHotkey: MINER.hotkey });
  assert.equal((await send(service, own, signed(service, MINER, own))).status, 201);
});

Deno.test("a signed upload is held to the same code checks, cooldown and balance as a keyed one", async () => {
  await using service = await signedService();
  const nested = JSON.stringify({ code: "class A:\n    def agent_main(self): pass\n" });
  await expectError(await send(service, nested, signed(service, MINER, nested)), 400, "invalid_request");
  const first = JSON.stringify({ code: agentCode(1) });
  assert.equal((await send(service, first, signed(service, MINER, first))).status, 201);
  const second = JSON.stringify({ code: agentCode(2) });
  const cooled = await send(service, second, signed(service, MINER, second));
  assert.equal(cooled.headers.get("retry-after"), "86400");
  await expectError(cooled, 429, "rate_limited");
  // OTHER registered to an org without credits: 402 after the signature checks pass.
  await minerOrg(service.request, [OTHER.hotkey], { creditMicro: "0" });
  await expectError(await send(service, first, signed(service, OTHER, first)), 402, "insufficient_credits");
});
