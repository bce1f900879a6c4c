import assert from "node:assert/strict";
import { Hono } from "hono";
import { PasskeyCeremony, publicOriginOf } from "../../../actors/ceremony/mod.ts";
import { ManualClock } from "../../../actors/kernel/mod.ts";
import type { AppEnv } from "../../../routes/http/app_env.ts";
import { onError } from "../../../routes/middleware/error_handler.ts";
import { PASSKEY_PATHS, passkeyRoutes } from "../../../routes/dashboard/ceremony/passkey_routes.ts";
import { MemoryChallengeStore } from "../../support/memory_challenge_store.ts";

const USER = { handle: "mem_1", name: "ada@example.org", displayName: "Ada" };

function app(options: { browser?: string | null; registrant?: boolean } = {}) {
  const clock = new ManualClock();
  const ceremony = new PasskeyCeremony({
    origin: publicOriginOf("http://localhost:8123"),
    rpName: "Forecasting Gateway",
    challenges: new MemoryChallengeStore(),
    clock: clock.now,
  });
  const routes = passkeyRoutes({
    ceremony,
    browserOf: () => options.browser === undefined ? "browser-a" : options.browser,
    registrantOf: () => Promise.resolve(options.registrant === false ? null : { user: USER }),
    saveCredential: () => Promise.reject(new Error("not reached")),
    findPasskey: () => Promise.resolve(null),
    signIn: () => Promise.reject(new Error("not reached")),
  });
  const root = new Hono<AppEnv>();
  root.onError(onError(() => {}));
  root.route("/dashboard", routes);
  return root;
}

function post(path: string, body: string, type = "application/json") {
  return { method: "POST", headers: { "content-type": type }, body, path: `/dashboard${path}` };
}

async function send(root: Hono<AppEnv>, request: ReturnType<typeof post>) {
  const response = await root.request(request.path, request);
  return { status: response.status, body: await response.json() };
}

Deno.test("options are answered for the configured relying party, whatever Host the request names", async () => {
  const root = app();
  const request = post(PASSKEY_PATHS.registrationOptions, "{}");
  const response = await root.request(
    "http://evil.example/dashboard" + PASSKEY_PATHS.registrationOptions,
    request,
  );
  const options = await response.json();
  assert.equal(response.status, 200);
  assert.equal(options.rp.id, "localhost");
  const signIn = await send(root, post(PASSKEY_PATHS.signInOptions, "{}"));
  assert.equal(signIn.body.rpId, "localhost");
});

Deno.test("a body off its schema is 400 naming the field; not JSON is 415 or 400", async () => {
  const root = app();
  const answer = await send(root, post(PASSKEY_PATHS.signIn, JSON.stringify({ response: { id: "!" } })));
  assert.equal(answer.status, 400);
  const fields = answer.body.error.details.fields.map((field: { field: string }) => field.field);
  assert.ok(fields.includes("response.id") && fields.includes("response.response"), fields.join());
  assert.equal((await send(root, post(PASSKEY_PATHS.signInOptions, '{"x":1}'))).status, 400);
  assert.equal((await send(root, post(PASSKEY_PATHS.signInOptions, "{", "application/json"))).status, 400);
  assert.equal((await send(root, post(PASSKEY_PATHS.signInOptions, "{}", "text/plain"))).status, 415);
});

Deno.test("a browser without a session, or with nobody to register, is refused", async () => {
  const noSession = await send(app({ browser: null }), post(PASSKEY_PATHS.signInOptions, "{}"));
  assert.equal(noSession.status, 401);
  const nobody = await send(app({ registrant: false }), post(PASSKEY_PATHS.registrationOptions, "{}"));
  assert.equal(nobody.status, 401);
  assert.match(nobody.body.error.message, /invitation/);
});
