import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { ADMIN_TOKEN, adminInit, createOrg } from "../support/access.ts";

/** Every kind of character the free-text fields refuse, a few samples of each. */
const REFUSED: Record<string, readonly string[]> = {
  "C0 control": ["\u0000", "\u0001", "\t", "\n", "\u000b", "\u000c", "\r", "\u001b", "\u001f"],
  "DEL": ["\u007f"],
  "C1 control": ["\u0080", "\u0085", "\u008d", "\u009b", "\u009f"],
  "line or paragraph separator": ["\u2028", "\u2029"],
  "bidi embedding or override": ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e"],
  "bidi isolate": ["\u2066", "\u2067", "\u2068", "\u2069"],
  "bidi mark": ["\u200e", "\u200f", "\u061c"],
  "lone surrogate": ["\ud800", "\udfff"],
};

/** Whitespace a value may not start or end with (it would otherwise read the same as without it). */
const EDGE_WHITESPACE = [" ", "\u00a0", "\u2003", "\u3000", "\ufeff"];

/** Text every free-text field keeps exactly as given. */
const ACCEPTED = [
  "r2",
  "Acme Corp",
  "Ünïcödé Gmbh",
  "東京 株式会社",
  "deploy 🚀 key",
  "a  b",
  "x".repeat(100),
];

/** The three free-text fields: how to send a value in each, and the field a 400 names. */
interface FreeTextField {
  label: string;
  field: string;
  send(service: TestService, orgId: string, value: string): Promise<Response>;
}

const FIELDS: readonly FreeTextField[] = [
  {
    label: "org name",
    field: "name",
    send: (service, _orgId, name) => service.request("/admin/v1/orgs", adminInit("POST", { name })),
  },
  {
    label: "key name",
    field: "name",
    send: (service, orgId, name) =>
      service.request(
        `/admin/v1/orgs/${orgId}/keys`,
        adminInit("POST", { name, scopes: ["billing:read"], rateLimitRpm: 5 }),
      ),
  },
  {
    label: "credit reference",
    field: "reference",
    send: (service, orgId, reference) =>
      service.request(
        `/admin/v1/orgs/${orgId}/credits`,
        adminInit("POST", { amountMicro: "5", reference }),
      ),
  },
];

/** Asserts a 400 `invalid_request` naming only `field`; returns its problem. */
async function assertRefused(response: Response, field: string, what: string): Promise<string> {
  const text = await response.text();
  assert.equal(response.status, 400, `${what}: ${text}`);
  const body = JSON.parse(text) as {
    error: { code: string; details: { fields: { field: string; problem: string }[] } };
  };
  assert.equal(body.error.code, "invalid_request", what);
  assert.deepEqual(body.error.details.fields.map((entry) => entry.field), [field], what);
  return body.error.details.fields[0]!.problem;
}

async function adminService(): Promise<{ service: TestService; orgId: string }> {
  const service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  return { service, orgId: await createOrg(service.request) };
}

/** The org's balance and how many keys it has. */
async function orgState(service: TestService, orgId: string): Promise<{ balance: string; keys: number }> {
  const org = await (await service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"))).json();
  return { balance: org.balanceMicro, keys: org.keys.length };
}

for (const { label, field, send } of FIELDS) {
  Deno.test(`${label}: every control, separator and bidi character is refused with 400, anywhere in the text`, async () => {
    const { service, orgId } = await adminService();
    await using _ = service;
    for (const [kind, characters] of Object.entries(REFUSED)) {
      for (const character of characters) {
        const code = character.codePointAt(0)!.toString(16).padStart(4, "0");
        for (const value of [character, `a${character}b`, `ab${character}`]) {
          const what = `${kind} U+${code} in ${JSON.stringify(value)}`;
          await assertRefused(await send(service, orgId, value), field, what);
        }
      }
    }
    assert.deepEqual(await orgState(service, orgId), { balance: "0", keys: 0 }, "nothing was stored");
  });

  Deno.test(`${label}: leading or trailing whitespace is refused, never trimmed`, async () => {
    const { service, orgId } = await adminService();
    await using _ = service;
    for (const space of EDGE_WHITESPACE) {
      for (const value of [`${space}r2`, `r2${space}`, `${space}r2${space}`, space]) {
        const problem = await assertRefused(await send(service, orgId, value), field, JSON.stringify(value));
        assert.match(problem, /whitespace/);
      }
    }
    for (const value of ["", "x".repeat(field === "reference" ? 129 : 101)]) {
      await assertRefused(await send(service, orgId, value), field, `length ${value.length}`);
    }
    assert.deepEqual(await orgState(service, orgId), { balance: "0", keys: 0 }, "nothing was stored");
  });
}

Deno.test("credit reference ' r2 ' is refused, so it can never be taken for 'r2'", async () => {
  const { service, orgId } = await adminService();
  await using _ = service;
  const credit = (reference: string) => FIELDS[2]!.send(service, orgId, reference);
  assert.equal((await credit("r2")).status, 201);
  await assertRefused(await credit(" r2 "), "reference", "' r2 ' after 'r2'");
  await assertRefused(await credit("r2\r\n"), "reference", "'r2\\r\\n' after 'r2'");
  const again = await credit("r2");
  assert.equal(again.status, 200);
  assert.equal((await again.json()).duplicate, true);
  assert.equal((await orgState(service, orgId)).balance, "5", "credited once");
});

adapterTest("free text without refused characters is stored and shown exactly as given", async (adapter) => {
  const service = await openTestService({ storage: adapter.storage, env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  for (const [index, text] of ACCEPTED.entries()) {
    const org = await FIELDS[0]!.send(service, orgId, text);
    assert.equal(org.status, 201);
    assert.equal((await org.json()).name, text);
    const key = await FIELDS[1]!.send(service, orgId, text);
    assert.equal(key.status, 201);
    assert.equal((await key.json()).key.name, text);
    const credit = await FIELDS[2]!.send(service, orgId, text);
    assert.equal(credit.status, 201, `credit ${index}`);
    assert.equal((await credit.json()).entry.reference, text);
  }
  const shown = await (await service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"))).json();
  const names = shown.keys.map((key: { name: string }) => key.name);
  assert.deepEqual(names.toSorted(), ACCEPTED.toSorted(), "listed with the org, unchanged");
});
