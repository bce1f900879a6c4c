import assert from "node:assert/strict";
import { openTestService, type TestService } from "../support/test_service.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The id a success (`/healthz`) and an error (unknown route) answer carry for `sent`. */
async function idsFor(service: TestService, sent: string | undefined): Promise<string[]> {
  const headers: Record<string, string> = sent === undefined ? {} : { "X-Request-Id": sent };
  const ok = await service.request("/healthz", { headers });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  const missing = await service.request("/no-such-route", { headers });
  assert.equal(missing.status, 404);
  const body = await missing.json() as { requestId: string };
  const echoed = missing.headers.get("x-request-id");
  assert.equal(body.requestId, echoed, "the error body names the id of its header");
  return [ok.headers.get("x-request-id") ?? "", echoed ?? ""];
}

Deno.test("an X-Request-Id of 8 to 128 characters of [A-Za-z0-9._-] is kept as sent", async () => {
  await using service = await openTestService();
  const kept = [
    "abcdefgh",
    "12345678",
    "req.2026-11-20_0001",
    "........",
    "a".repeat(128),
    "A.b-C_d.E-f_G",
    "0b5e6e36-7d4b-4f0a-9a8e-1c2d3e4f5a6b",
  ];
  for (const sent of kept) assert.deepEqual(await idsFor(service, sent), [sent, sent], sent);
});

Deno.test("any other X-Request-Id is replaced by a fresh UUID", async () => {
  await using service = await openTestService();
  const replaced = [
    "",
    "a",
    "abcdefg",
    "a.b.c.d",
    "a".repeat(129),
    "x".repeat(4_000),
    "abcd efgh",
    "abcd/efgh",
    "abcd=efgh",
    "abcd+efgh",
    "abcd:efgh",
    "abcdéfghi",
    "abcd%00efgh",
  ];
  const seen = new Set<string>();
  for (const sent of replaced) {
    const [ok, error] = await idsFor(service, sent);
    assert.match(ok!, UUID, JSON.stringify(sent));
    assert.match(error!, UUID, JSON.stringify(sent));
    assert.notEqual(ok, error, "each request gets its own id");
    seen.add(ok!).add(error!);
  }
  assert.equal(seen.size, replaced.length * 2, "no id is made twice");
});

Deno.test("a request without X-Request-Id gets a fresh UUID", async () => {
  await using service = await openTestService();
  const [ok, error] = await idsFor(service, undefined);
  assert.match(ok!, UUID);
  assert.match(error!, UUID);
});
