import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { API_KEY_SCOPES, type ApiKeyScope } from "../../storage/api_key_store.ts";
import { EventPage } from "../../routes/catalog/events_api.ts";
import { ADMIN_TOKEN, createOrg, errorCode, issueKey } from "../support/access.ts";
import { eventRecord, putEvents } from "../support/events.ts";
import { openTestService } from "../support/test_service.ts";
import {
  apiRoutesOf,
  concretePath,
  fetchDocument,
  type OpenApiDocument,
  type Operation,
  refsIn,
  takesApiKey,
} from "./openapi_support.ts";

const ENV = { FGW_ADMIN_TOKEN: ADMIN_TOKEN };

/** Each operation of the document with its method and path. */
function operations(doc: OpenApiDocument): { method: string; path: string; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation }))
  );
}

Deno.test("GET /openapi.json is a valid OpenAPI 3.1 document whose references all resolve", async () => {
  await using service = await openTestService({ env: ENV });
  const doc = await fetchDocument(service.request);
  const validator = new Validator();
  const result = await validator.validate(doc as unknown as Record<string, unknown>);
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
  assert.equal(validator.version, "3.1");
  assert.equal(doc.info.title, "Forecasting Gateway");
  for (const ref of new Set(refsIn(doc))) {
    const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(ref) ?? [];
    assert.ok(kind && name && doc.components[kind]?.[name] !== undefined, `unresolved ${ref}`);
  }
});

Deno.test("every route of the app is in the document and every documented route is in the app", async () => {
  await using service = await openTestService({ env: ENV });
  const doc = await fetchDocument(service.request);
  const served = apiRoutesOf(service.app).map(({ method, path }) => `${method} ${path}`).toSorted();
  const documented = operations(doc).map(({ method, path }) => `${method} ${path}`).toSorted();
  assert.ok(served.length >= 18, `the app serves ${served.length} routes`);
  assert.deepEqual(documented, served);
});

Deno.test("every error response has the error body of docs/conventions.md and the headers its status carries", async () => {
  await using service = await openTestService({ env: ENV });
  const doc = await fetchDocument(service.request);
  for (const { method, path, operation } of operations(doc)) {
    const where = `${method} ${path}`;
    const statuses = Object.keys(operation.responses);
    assert.ok(statuses.includes("500"), `${where}: 500`);
    const params = operation.parameters ?? [];
    if (params.some((param) => param.in === "query")) assert.ok(statuses.includes("400"), `${where}: 400`);
    if (params.some((param) => param.in === "path")) assert.ok(statuses.includes("404"), `${where}: 404`);
    if (operation.requestBody) {
      for (const status of ["400", "413", "415"]) assert.ok(statuses.includes(status), `${where}: ${status}`);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      const headers = Object.keys(response.headers ?? {});
      assert.ok(headers.includes("X-Request-Id"), `${where} ${status}: X-Request-Id`);
      if (Number(status) >= 400) {
        assert.deepEqual(response.content?.["application/json"]?.schema, {
          $ref: "#/components/schemas/ErrorBody",
        }, `${where} ${status}: error body`);
      }
      if (status === "429" || status === "503") {
        assert.ok(headers.includes("Retry-After"), `${where} ${status}`);
      }
      if (takesApiKey(operation) && status !== "401") {
        assert.ok(headers.includes("X-RateLimit-Limit"), `${where} ${status}: X-RateLimit-Limit`);
        assert.ok(headers.includes("X-RateLimit-Remaining"), `${where} ${status}: X-RateLimit-Remaining`);
      }
    }
    if (takesApiKey(operation)) {
      for (const status of ["401", "403", "429"]) assert.ok(statuses.includes(status), `${where}: ${status}`);
    }
  }
});

Deno.test("every route the IP throttle covers documents 429 with Retry-After, and no other does", async () => {
  await using service = await openTestService({ env: { ...ENV, FGW_IP_RPM: "1" } });
  const doc = await fetchDocument(service.request);
  const routes = apiRoutesOf(service.app);
  for (const [index, { method, path }] of routes.entries()) {
    const remoteAddr = { hostname: `198.51.100.${index + 1}`, port: 40_000, transport: "tcp" };
    const call = () =>
      service.app.request(concretePath(path), { method: method.toUpperCase() }, { remoteAddr });
    await (await call()).body?.cancel();
    const second = await call();
    const throttled = second.status === 429;
    if (throttled) assert.ok(second.headers.get("retry-after"), `${method} ${path}: Retry-After sent`);
    await second.body?.cancel();
    const operation = doc.paths[path]?.[method];
    assert.ok(operation, `${method} ${path} documented`);
    const documented = operation.responses["429"];
    if (throttled) {
      assert.ok(documented?.headers?.["Retry-After"], `${method} ${path}: 429 with Retry-After documented`);
    } else if (!takesApiKey(operation)) {
      assert.equal(documented, undefined, `${method} ${path} is not throttled, yet documents 429`);
    }
  }
});

Deno.test("routes documented with an API key refuse none (401) and a key without the scope (403 with X-RateLimit)", async () => {
  await using service = await openTestService({ env: ENV });
  const doc = await fetchDocument(service.request);
  const orgId = await createOrg(service.request);
  const keyRoutes = operations(doc).filter(({ operation }) => takesApiKey(operation));
  assert.ok(keyRoutes.length >= 1);
  for (const { method, path, operation } of keyRoutes) {
    const scope = operation.security?.[0]?.["apiKey"]?.[0] as ApiKeyScope;
    assert.ok(API_KEY_SCOPES.includes(scope), `${method} ${path} names its scope`);
    const url = concretePath(path);
    const anonymous = await service.request(url, { method: method.toUpperCase() });
    assert.equal(anonymous.status, 401, `${method} ${path}`);
    assert.equal(await errorCode(anonymous), "unauthenticated");
    const { apiKey } = await issueKey(service.request, orgId, {
      scopes: API_KEY_SCOPES.filter((other) => other !== scope),
    });
    const unscoped = await service.request(url, {
      method: method.toUpperCase(),
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(unscoped.status, 403, `${method} ${path}`);
    assert.ok(unscoped.headers.get("x-ratelimit-limit"), `${method} ${path}: X-RateLimit-Limit`);
    assert.ok(unscoped.headers.get("x-ratelimit-remaining"), `${method} ${path}: X-RateLimit-Remaining`);
    assert.equal(await errorCode(unscoped), "insufficient_scope");
  }
});

Deno.test("routes documented with the admin token answer 401 without it", async () => {
  await using service = await openTestService({ env: ENV });
  const doc = await fetchDocument(service.request);
  const adminRoutes = operations(doc).filter(({ operation }) =>
    (operation.security ?? []).some((requirement) => "adminToken" in requirement)
  );
  assert.ok(adminRoutes.length >= 13);
  for (const { method, path } of adminRoutes) {
    const response = await service.request(concretePath(path), { method: method.toUpperCase() });
    assert.equal(response.status, 401, `${method} ${path}`);
    assert.ok(response.headers.get("www-authenticate"), `${method} ${path}: WWW-Authenticate`);
    assert.equal(await errorCode(response), "unauthenticated");
  }
});

Deno.test("a page of /v1/events has exactly the documented shape", async () => {
  await using service = await openTestService();
  const now = service.clock.now();
  await putEvents(service.storage, [eventRecord("e-1", now), eventRecord("e-2", now)], now);
  await service.catalog.view.refresh();
  const response = await service.request("/v1/events?limit=1");
  assert.equal(response.status, 200);
  const body = await response.json();
  const parsed = EventPage.strict().parse(body);
  assert.equal(parsed.items.length, 1);
  assert.deepEqual(Object.keys(parsed.items[0]!).toSorted(), Object.keys(body.items[0]).toSorted());
  assert.equal(typeof parsed.nextCursor, "string");
});

interface ParameterSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

/** The problem with `schema.default`, if any: its type, range and enum must be the schema's own. */
function defaultProblem(schema: ParameterSchema): string | null {
  const value = schema.default;
  if (value === undefined) return null;
  const typeOk = schema.type === "integer"
    ? Number.isInteger(value)
    : schema.type === "number"
    ? typeof value === "number"
    : schema.type === "string"
    ? typeof value === "string"
    : schema.type === "boolean"
    ? typeof value === "boolean"
    : false;
  if (!typeOk) return `default ${JSON.stringify(value)} is not of type ${schema.type}`;
  if (schema.enum && !schema.enum.includes(value)) {
    return `default ${JSON.stringify(value)} is not in its enum`;
  }
  const number = value as number;
  if (schema.minimum !== undefined && number < schema.minimum) return `default below minimum`;
  if (schema.maximum !== undefined && number > schema.maximum) return `default above maximum`;
  return null;
}

Deno.test("every parameter's default is a value of its own schema, and numeric query parameters are documented as numbers with their range", async () => {
  await using service = await openTestService({ env: ENV });
  const doc = await fetchDocument(service.request);
  let integers = 0;
  for (const { method, path, operation } of operations(doc)) {
    for (const parameter of operation.parameters ?? []) {
      const schema = (parameter as { schema?: ParameterSchema }).schema ?? {};
      const where = `${method} ${path} ${parameter.name}`;
      assert.equal(defaultProblem(schema), null, where);
      if (["limit", "days", "miners", "uid", "netuid", "tagId", "seed"].includes(parameter.name)) {
        assert.equal(schema.type, "integer", where);
        assert.ok(schema.minimum !== undefined && schema.maximum !== undefined, `${where}: range`);
        integers++;
      }
    }
  }
  assert.ok(integers >= 12, `${integers} integer parameters`);
});
