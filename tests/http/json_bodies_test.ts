import assert from "node:assert/strict";
import { ADMIN_TOKEN, createOrg, errorCode, HOTKEY_A, HOTKEY_B, issueKey } from "../support/access.ts";
import { agentCode, minerOrg } from "../support/agents.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { concretePath, fetchDocument } from "./openapi_support.ts";

/** A valid body for every documented route that takes one (the test fails when one is missing). */
const VALID_BODIES: Record<string, unknown> = {
  "post /admin/v1/orgs": { name: "Acme" },
  "post /admin/v1/orgs/{orgId}/credits": { amountMicro: "5", reference: "inv-1" },
  "post /admin/v1/orgs/{orgId}/miners": { hotkey: HOTKEY_A },
  "post /admin/v1/orgs/{orgId}/keys": { name: "ci", scopes: ["billing:read"], rateLimitRpm: 5 },
  "post /admin/v1/orgs/{orgId}/invitations": { role: "owner" },
  "post /v1/agents/submit-agent": { code: agentCode(), name: "sample" },
  "post /v1/predictions/query": { eventIds: ["polymarket-1"] },
  "post /v1/gateway/completions": {
    provider: "echo",
    model: "echo-1",
    messages: [{ role: "user", content: "hi" }],
    maxTokens: 4,
  },
};

const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * Routes behind a validator signature alone: their checks run before the body's (an API key or
 * admin token there is 403 `wrong_auth_scheme`), so their bodies are tested with signed requests
 * in tests/validators/.
 */
const SIGNED_BODY_ROUTES = ["post /v1/validators/prediction", "post /v1/gateway/validator/completions"];

/**
 * An admin-enabled service with one org (`{orgId}` of a path names it) and the credentials of each
 * route: the admin token, or for the agent upload a `predictions:write` key of a funded miner's org
 * (a `gateway:write` key of the same org for the completion route).
 */
async function serviceWithOrg(): Promise<
  { service: TestService; orgId: string; auth(key: string): Record<string, string> }
> {
  const env = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: "http://localhost:8080" };
  const service = await openTestService({ env });
  const orgId = await createOrg(service.request);
  const miner = await minerOrg(service.request, [HOTKEY_B]);
  const gateway = await issueKey(service.request, miner.orgId, { scopes: ["gateway:write"] });
  const auth = (key: string) => {
    if (key.startsWith("post /v1/gateway/")) return { authorization: `Bearer ${gateway.apiKey}` };
    return key.startsWith("post /v1/") ? { authorization: `Bearer ${miner.apiKey}` } : ADMIN;
  };
  return { service, orgId, auth };
}

/** The operations of the document that take a JSON body, and the POSTs that take none. */
async function postRoutes(service: TestService) {
  const doc = await fetchDocument(service.request);
  const posts = Object.entries(doc.paths).flatMap(([path, item]) =>
    item.post ? [{ path, operation: item.post, key: `post ${path}` }] : []
  );
  return {
    signed: posts.filter(({ key }) => SIGNED_BODY_ROUTES.includes(key)),
    withBody: posts.filter(({ operation, key }) =>
      operation.requestBody && !SIGNED_BODY_ROUTES.includes(key)
    ),
    withoutBody: posts.filter(({ operation }) => !operation.requestBody),
  };
}

async function expectError(response: Response, status: number, code: string, where: string): Promise<void> {
  assert.equal(response.status, status, where);
  assert.equal(await errorCode(response), code, where);
}

Deno.test("every JSON body is declared required and strict, and each route has a valid sample here", async () => {
  const { service } = await serviceWithOrg();
  await using _ = service;
  const { withBody, signed } = await postRoutes(service);
  assert.deepEqual(withBody.map(({ key }) => key).toSorted(), Object.keys(VALID_BODIES).toSorted());
  assert.deepEqual(signed.map(({ key }) => key), SIGNED_BODY_ROUTES);
  for (const { key, operation } of [...withBody, ...signed]) {
    assert.equal(operation.requestBody?.required, true, key);
    const schema = operation.requestBody?.content["application/json"]?.schema as Record<string, unknown>;
    assert.equal(schema.additionalProperties, false, `${key}: unknown fields refused`);
  }
});

Deno.test("a POST body without Content-Type, or of another type, answers 415 unsupported_media_type", async () => {
  const { service, orgId, auth } = await serviceWithOrg();
  await using _ = service;
  for (const { path, key } of (await postRoutes(service)).withBody) {
    const credentials = auth(key);
    const url = concretePath(path, { orgId });
    const body = JSON.stringify(VALID_BODIES[key]);
    await expectError(
      await service.request(url, { method: "POST", headers: credentials, body }),
      415,
      "unsupported_media_type",
      `${key} untyped`,
    );
    await expectError(
      await service.request(url, { method: "POST", headers: credentials }),
      415,
      "unsupported_media_type",
      `${key} empty`,
    );
    const refusedTypes = [
      "text/plain",
      "application/vnd.api+json",
      "application/json; charset=utf-16",
      "application/json ; charset=utf-8",
      "application/json; charset = utf-8",
      "application/json;",
    ];
    for (const type of refusedTypes) {
      const answer = await service.request(url, {
        method: "POST",
        headers: { ...credentials, "content-type": type },
        body,
      });
      const error = (await answer.json()).error;
      // The gate's own 415 (it names the type), never the validator's behind it.
      assert.deepEqual(
        [answer.status, error.code, error.details?.contentType],
        [415, "unsupported_media_type", type],
        `${key} ${type}`,
      );
    }
  }
});

Deno.test("application/json is taken in any case, with or without charset=utf-8", async () => {
  const { service, orgId, auth } = await serviceWithOrg();
  await using _ = service;
  const types = ["Application/JSON", "application/json; charset=UTF-8", 'application/json;charset="utf-8"'];
  for (const { path, key } of (await postRoutes(service)).withBody) {
    const type = types[key.length % types.length]!;
    const taken = await service.request(concretePath(path, { orgId }), {
      method: "POST",
      headers: { ...auth(key), "content-type": type },
      body: JSON.stringify(VALID_BODIES[key]),
    });
    assert.ok(
      taken.status === 200 || taken.status === 201,
      `${key} (${type}): ${taken.status} ${await taken.text()}`,
    );
  }
});

Deno.test("a POST body with an unknown field answers 400 naming it; the same body without it is taken", async () => {
  const { service, orgId, auth } = await serviceWithOrg();
  await using _ = service;
  for (const { path, key } of (await postRoutes(service)).withBody) {
    const headers = { ...auth(key), "content-type": "application/json" };
    const url = concretePath(path, { orgId });
    const extra = JSON.stringify({ ...VALID_BODIES[key] as object, surprise: 1 });
    const refused = await service.request(url, { method: "POST", headers, body: extra });
    const text = await refused.text();
    assert.equal(refused.status, 400, `${key}: ${text}`);
    const error = JSON.parse(text).error;
    assert.equal(error.code, "invalid_request");
    assert.deepEqual(error.details.fields.map((f: { field: string }) => f.field), ["surprise"], key);
    assert.match(error.details.fields[0].problem, /surprise/, key);
    await expectError(
      await service.request(url, { method: "POST", headers, body: "" }),
      400,
      "invalid_request",
      `${key} empty JSON`,
    );
    // A Latin-1 "é" (0xe9) where UTF-8 is required: refused, never read as U+FFFD.
    const utf8 = new TextEncoder();
    const latin1 = new Uint8Array([...utf8.encode('{"name":"Caf'), 0xe9, ...utf8.encode('"}')]);
    await expectError(
      await service.request(url, { method: "POST", headers, body: latin1 }),
      400,
      "invalid_request",
      `${key} not UTF-8`,
    );
    const taken = await service.request(url, {
      method: "POST",
      headers,
      body: JSON.stringify(VALID_BODIES[key]),
    });
    assert.ok(taken.status === 200 || taken.status === 201, `${key}: ${taken.status} ${await taken.text()}`);
  }
});

Deno.test("a POST that takes no body needs no Content-Type", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  const { withoutBody } = await postRoutes(service);
  assert.ok(withoutBody.length >= 2);
  for (const { path, key } of withoutBody) {
    const { key: issued } = await issueKey(service.request, orgId);
    const response = await service.request(concretePath(path, { orgId, keyId: issued.keyId }), {
      method: "POST",
      headers: ADMIN,
    });
    assert.equal(response.status, 200, `${key}: ${await response.text()}`);
  }
});
