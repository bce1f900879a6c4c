import assert from "node:assert/strict";
import { Hono } from "hono";
import { Metrics, ServiceError, silentLogger } from "../../actors/kernel/mod.ts";
import { installFrontDoor } from "../../routes/front_door.ts";
import { answerHeader, sendJson } from "../../routes/http/answer.ts";
import type { AppEnv } from "../../routes/http/app_env.ts";
import { onError } from "../../routes/middleware/error_handler.ts";
import { adminAuth } from "../../routes/middleware/admin_auth.ts";

/**
 * A bare app behind the front door: a middleware sets an answer header (as key authentication sets
 * the rate-limit ones), then routes answer with `sendJson`, with `c.json`, with headers that
 * cannot change, or refuse.
 */
function app(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(onError(silentLogger));
  app.use("*", async (c, next) => {
    answerHeader(c, "X-RateLimit-Remaining", "41");
    await next();
  });
  app.get("/built", (c) => sendJson(c, { ok: true }, 200, { "X-Only-Here": "yes" }));
  app.get("/plain", (c) => c.json({ ok: true }, 200));
  // Headers that cannot change, as a fetched response's: the front door stamps a copy.
  app.get("/immutable", () => Response.redirect("http://example.test/elsewhere", 302));
  app.get("/refused", () => {
    throw new ServiceError("rate_limited", "slow down", { retryAfterSeconds: 7 });
  });
  installFrontDoor(app, new Metrics({ clock: () => Date.now() }));
  return app;
}

const ID = { "X-Request-Id": "answer-test-0001" };

/** `path` answers `status` with the request id and the middleware's answer header. */
async function answerOf(path: string, status: number): Promise<Response> {
  const response = await app().request(path, { headers: ID });
  assert.equal(response.status, status, path);
  assert.equal(response.headers.get("x-request-id"), ID["X-Request-Id"], path);
  assert.equal(response.headers.get("x-ratelimit-remaining"), "41", path);
  return response;
}

Deno.test("an answer built with sendJson carries the request id, the answer headers and its own", async () => {
  const response = await answerOf("/built", 200);
  assert.equal(response.headers.get("x-only-here"), "yes");
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.deepEqual(await response.json(), { ok: true });
});

Deno.test("an answer built another way gets the request id and the answer headers from the front door", async () => {
  for (const [path, status] of [["/plain", 200], ["/immutable", 302]] as const) {
    const response = await answerOf(path, status);
    await response.body?.cancel();
  }
});

Deno.test("an error body carries the answer headers and its own Retry-After", async () => {
  const response = await answerOf("/refused", 429);
  assert.equal(response.headers.get("retry-after"), "7");
  const body = await response.json() as { requestId: string; error: { code: string } };
  assert.equal(body.error.code, "rate_limited");
  assert.equal(body.requestId, ID["X-Request-Id"]);
});

Deno.test("an answer's own header wins over an answer header of the same name in another case", async () => {
  const app = new Hono<AppEnv>();
  app.get("/", (c) => {
    answerHeader(c, "X-Choice", "answer header");
    return sendJson(c, { ok: true }, 200, { "x-choice": "own" });
  });
  installFrontDoor(app, new Metrics({ clock: () => Date.now() }));
  const response = await app.request("/");
  assert.equal(response.headers.get("x-choice"), "own");
  await response.body?.cancel();
});

Deno.test("outside the front door, answers keep the headers set with answerHeader", async () => {
  // A sub-app served alone, as in a test: answerHeader falls back to Hono's c.header.
  const app = new Hono();
  app.onError(onError(silentLogger));
  app.use("/admin/*", adminAuth("an-admin-token-long-enough-0123456789"));
  app.get("/admin/x", (c) => c.json({}));
  app.get("/built", (c) => {
    answerHeader(c, "X-RateLimit-Remaining", "9");
    return sendJson(c, { ok: true }, 200);
  });
  const refused = await app.request("/admin/x");
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("www-authenticate"), 'Bearer realm="admin"');
  await refused.body?.cancel();
  const built = await app.request("/built");
  assert.equal(built.headers.get("x-ratelimit-remaining"), "9");
  assert.equal(built.headers.get("content-type"), "application/json");
  assert.deepEqual(await built.json(), { ok: true });
});
