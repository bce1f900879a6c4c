import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { ADMIN_TOKEN, createOrg, HOTKEY_A, HOTKEY_B, issueKey } from "../support/access.ts";
import { agentCode, minerOrg, SUBMIT_AGENT, uploadInit } from "../support/agents.ts";
import { openTestService, TEST_START_MS, type TestService } from "../support/test_service.ts";

const MAX_BYTES = 4096;
const DAY = 86_400_000;
const ENV = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_AGENT_MAX_BYTES: String(MAX_BYTES) };

function withKey(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}` };
}

async function upload(service: TestService, apiKey: string, body: unknown): Promise<Response> {
  return await service.request(SUBMIT_AGENT, uploadInit(body, withKey(apiKey)));
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

Deno.test("an upload with a predictions:write key stores a version of the org's default miner (201)", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  const code = agentCode("first");
  const response = await upload(service, apiKey, { code, name: "first try" });
  const body = await response.json();
  assert.equal(response.status, 201, JSON.stringify(body));
  assert.match(body.versionId, /^agv_[0-9a-f]{32}$/);
  assert.deepEqual(body, {
    versionId: body.versionId,
    minerHotkey: HOTKEY_A,
    sha256: bytesToHex(sha256(utf8ToBytes(code))),
    sizeBytes: utf8ToBytes(code).length,
    name: "first try",
    createdAt: new Date(TEST_START_MS).toISOString(),
    current: true,
  });
  assert.ok(response.headers.get("x-ratelimit-limit"));
  assert.equal((await service.storage.agents.get(body.versionId))?.code, code);
});

Deno.test("a key without predictions:write is refused with 403 insufficient_scope", async () => {
  await using service = await openTestService({ env: ENV });
  const orgId = await createOrg(service.request);
  const { apiKey } = await issueKey(service.request, orgId, { scopes: ["predictions:read", "billing:read"] });
  await expectError(await upload(service, apiKey, { code: agentCode() }), 403, "insufficient_scope");
  const anonymous = await service.request(SUBMIT_AGENT, uploadInit({ code: agentCode() }));
  await expectError(anonymous, 401, "unauthenticated");
  assert.equal(anonymous.headers.get("www-authenticate"), 'Bearer realm="api"');
});

Deno.test("the miner is minerHotkey, else the key's pinned miner, else the org's default", async () => {
  await using service = await openTestService({ env: ENV });
  const { orgId, apiKey } = await minerOrg(service.request, [HOTKEY_A, HOTKEY_B]);
  const pinned = (await issueKey(service.request, orgId, {
    scopes: ["predictions:write"],
    pinnedMinerHotkey: HOTKEY_B,
  })).apiKey;
  const named = await (await upload(service, apiKey, { code: agentCode(1), minerHotkey: HOTKEY_B })).json();
  assert.equal(named.minerHotkey, HOTKEY_B);
  const byDefault = await (await upload(service, apiKey, { code: agentCode(2) })).json();
  assert.equal(byDefault.minerHotkey, HOTKEY_A);
  service.clock.advance(DAY);
  const byPin = await (await upload(service, pinned, { code: agentCode(3) })).json();
  assert.equal(byPin.minerHotkey, HOTKEY_B);
});

Deno.test("a miner of another org, or none at all, is refused: 403 miner_not_registered, 400 naming minerHotkey", async () => {
  await using service = await openTestService({ env: ENV });
  await minerOrg(service.request, [HOTKEY_B]);
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A], { noDefault: true });
  const foreign = await expectError(
    await upload(service, apiKey, { code: agentCode(), minerHotkey: HOTKEY_B }),
    403,
    "miner_not_registered",
  );
  assert.deepEqual(foreign["details"], { minerHotkey: HOTKEY_B });
  const unnamed = await expectError(
    await upload(service, apiKey, { code: agentCode() }),
    400,
    "invalid_request",
  );
  assert.deepEqual((unnamed["details"] as { fields: { field: string }[] }).fields.map((f) => f.field), [
    "minerHotkey",
  ]);
  const malformed = await expectError(
    await upload(service, apiKey, { code: agentCode(), minerHotkey: "5notanaddress" }),
    400,
    "invalid_request",
  );
  assert.match(JSON.stringify(malformed["details"]), /minerHotkey/);
  assert.equal((await service.storage.agents.listVersions(HOTKEY_B)).length, 0);
});

Deno.test("identical code answers the existing version with 200 and does not restart the cooldown", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  const first = await (await upload(service, apiKey, { code: agentCode("same"), name: "v1" })).json();
  service.clock.advance(DAY / 2);
  const again = await upload(service, apiKey, { code: agentCode("same"), name: "renamed" });
  assert.equal(again.status, 200);
  assert.deepEqual(await again.json(), first);
  // The cooldown still counts from the first upload: a new version is due at +24 h, not +36 h.
  service.clock.advance(DAY / 2);
  const next = await upload(service, apiKey, { code: agentCode("next") });
  assert.equal(next.status, 201, await next.text());
  // The older code is an existing version, no longer current.
  const older = await upload(service, apiKey, { code: agentCode("same") });
  assert.equal(older.status, 200);
  assert.deepEqual(await older.json(), { ...first, current: false });
});

Deno.test("a second new version within the cooldown gets 429 with Retry-After until it is over", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  assert.equal((await upload(service, apiKey, { code: agentCode(1) })).status, 201);
  service.clock.advance(DAY - 90_500);
  const early = await upload(service, apiKey, { code: agentCode(2) });
  assert.equal(early.headers.get("retry-after"), "91");
  const error = await expectError(early, 429, "rate_limited");
  assert.deepEqual(error["details"], {
    lastUploadAt: new Date(TEST_START_MS).toISOString(),
    retryAt: new Date(TEST_START_MS + DAY).toISOString(),
  });
  service.clock.advance(90_500);
  assert.equal((await upload(service, apiKey, { code: agentCode(2) })).status, 201);
});

Deno.test("an org without a positive available balance gets 402 insufficient_credits", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A], { creditMicro: "0" });
  const error = await expectError(
    await upload(service, apiKey, { code: agentCode() }),
    402,
    "insufficient_credits",
  );
  assert.equal((error["details"] as { availableMicro: string }).availableMicro, "0");
  assert.equal((await service.storage.agents.listVersions(HOTKEY_A)).length, 0);
});

Deno.test("code over FGW_AGENT_MAX_BYTES, or a body over its limit, gets 413 payload_too_large", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  const code = agentCode() + "#".repeat(MAX_BYTES - agentCode().length + 1);
  const over = await expectError(await upload(service, apiKey, { code }), 413, "payload_too_large");
  assert.deepEqual(over["details"], { maxBytes: MAX_BYTES, sizeBytes: MAX_BYTES + 1 });
  // Exactly at the limit, escaped as \u0001 comments at six bytes each: the body still fits.
  const escaped = agentCode() + "#" + "\u0001".repeat(MAX_BYTES - agentCode().length - 1);
  assert.equal(utf8ToBytes(escaped).length, MAX_BYTES);
  assert.equal((await upload(service, apiKey, { code: escaped })).status, 201);
  const huge = JSON.stringify({ code: "#".repeat(6 * MAX_BYTES + 4096) });
  await expectError(await upload(service, apiKey, huge), 413, "payload_too_large");
});

Deno.test("a body with invalid UTF-8 bytes, or code with a lone surrogate, gets 400", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  const prefix = utf8ToBytes('{"code":"def agent_main(e): return \'');
  const suffix = utf8ToBytes("'\\n\"}");
  const body = new Uint8Array([...prefix, 0xc3, 0x28, ...suffix]);
  const init = { ...uploadInit("", withKey(apiKey)), body };
  const bytes = await expectError(await service.request(SUBMIT_AGENT, init), 400, "invalid_request");
  assert.match(String(bytes["message"]), /not valid UTF-8/);
  const surrogate = '{"code":"def agent_main(e): return \'\\ud800\'\\n"}';
  const lone = await expectError(await upload(service, apiKey, surrogate), 400, "invalid_request");
  assert.match(String(lone["message"]), /unpaired surrogate at line 1/);
  assert.equal((await service.storage.agents.listVersions(HOTKEY_A)).length, 0);
});

Deno.test("code without a top-level agent_main, or that does not parse, gets 400 naming the problem", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  const cases: [string, RegExp][] = [
    ["def main(event):\n    return {}\n", /Must define agent_main/],
    ["# def agent_main(event): pass\n", /Must define agent_main/],
    ['DOC = "def agent_main(event): pass"\n', /Must define agent_main/],
    ["def outer():\n    def agent_main(event):\n        pass\n", /top level of the file: the one at line 2/],
    ["def agent_main(event):\n    return {\n\nprint(1\n", /Syntax error at line \d+, column \d+/],
    ["import os\ndef agent_main(event) -> :\n    pass\n", /Syntax error at line 2, column/],
  ];
  for (const [code, message] of cases) {
    const error = await expectError(await upload(service, apiKey, { code }), 400, "invalid_request");
    assert.match(String(error["message"]), message);
    assert.equal((error["details"] as { fields: { field: string }[] }).fields[0]?.field, "code");
  }
  assert.equal((await service.storage.agents.listVersions(HOTKEY_A)).length, 0);
});

Deno.test("unknown body fields and a name that is not free text are refused with 400; the body must be JSON (415)", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  const extra = await expectError(
    await upload(service, apiKey, { code: agentCode(), version: 2 }),
    400,
    "invalid_request",
  );
  assert.match(JSON.stringify(extra["details"]), /version/);
  for (const name of [" padded", "a\nb", "x".repeat(101)]) {
    const bad = await expectError(
      await upload(service, apiKey, { code: agentCode(), name }),
      400,
      "invalid_request",
    );
    assert.deepEqual((bad["details"] as { fields: { field: string }[] }).fields.map((f) => f.field), [
      "name",
    ]);
  }
  const text = await service.request(SUBMIT_AGENT, {
    method: "POST",
    headers: { ...withKey(apiKey), "content-type": "text/x-python" },
    body: agentCode(),
  });
  await expectError(text, 415, "unsupported_media_type");
});

Deno.test("an API key sent with miner signature headers is refused with 403 wrong_auth_scheme", async () => {
  await using service = await openTestService({ env: ENV });
  const { apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  for (const header of ["x-miner-hotkey", "x-miner-signature", "x-validator-signature"]) {
    const mixed = await service.request(
      SUBMIT_AGENT,
      uploadInit({ code: agentCode(header) }, {
        ...withKey(apiKey),
        [header]: HOTKEY_A,
      }),
    );
    await expectError(mixed, 403, "wrong_auth_scheme");
  }
  assert.equal((await upload(service, apiKey, { code: agentCode() })).status, 201, "the key alone is taken");
  const validatorSigned = await service.request(
    SUBMIT_AGENT,
    uploadInit({ code: agentCode("validator") }, {
      "x-validator-hotkey": HOTKEY_A,
      "x-validator-signature": "0x00",
    }),
  );
  assert.equal(validatorSigned.status, 403);
  const body = await validatorSigned.json();
  assert.equal(body.error.code, "wrong_auth_scheme");
  assert.match(body.error.message, /API key or a miner request signature/);
});
