/**
 * `SignInLimits` as another sign-in (the hotkey's) uses it: in front of any route that answers 401
 * for a refused signature, with the account read from a copy of its JSON body.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { ManualClock, silentLogger } from "../../../actors/kernel/mod.ts";
import { jsonBodyCopy, SignInLimits } from "../../../routes/dashboard/sign_in_limits.ts";
import { onError } from "../../../routes/middleware/error_handler.ts";
import { KvRateLimitStore } from "../../../storage/kv/kv_rate_limit_store.ts";

const SETTINGS = {
  perAddress: { attempts: 100, windowMs: 60_000 },
  perAccount: { failures: 4, perSource: 2, windowMs: 60_000 },
};

async function hotkeyApp() {
  const kv = await Deno.openKv(":memory:");
  const limits = new SignInLimits({
    store: new KvRateLimitStore(kv),
    clock: new ManualClock(0).now,
    trustedProxies: [],
    settings: SETTINGS,
  });
  const app = new Hono();
  app.onError(onError(silentLogger));
  app.use("/sign-in/hotkey", limits.perAddress());
  app.use(
    "/sign-in/hotkey",
    limits.perAccount(async (c) => {
      const hotkey = ((await jsonBodyCopy(c)) as { hotkey?: unknown } | null)?.hotkey;
      return typeof hotkey === "string" ? `hotkey:${hotkey}` : null;
    }),
  );
  // The route reads the body itself: a good signature signs in, any other is refused.
  app.post("/sign-in/hotkey", async (c) => {
    const body = await c.req.json();
    return body.signature === "good" ? c.json({ next: "/dashboard" }) : c.json({ error: {} }, 401);
  });
  const send = (hotkey: string, signature: string, address: string) =>
    app.request("/sign-in/hotkey", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hotkey, signature }),
    }, { remoteAddr: { hostname: address, port: 1, transport: "tcp" } });
  return { kv, send };
}

Deno.test("a hotkey sign-in behind the limits: failures slow only their sources; one that never failed always signs in", async () => {
  const { kv, send } = await hotkeyApp();
  try {
    const raced = await Promise.all(Array.from({ length: 6 }, () => send("5Hot", "bad", "192.0.2.1")));
    assert.deepEqual(raced.map((r) => r.status).toSorted(), [401, 401, 429, 429, 429, 429]);
    assert.match(raced.find((r) => r.status === 429)!.headers.get("retry-after") ?? "", /^\d+$/);
    assert.equal((await send("5Hot", "bad", "192.0.2.2")).status, 401);
    assert.equal((await send("5Hot", "bad", "192.0.2.3")).status, 401);
    // The account has its 4 failures: the sources that failed are refused, even with a good signature…
    assert.equal((await send("5Hot", "good", "192.0.2.2")).status, 429);
    // …a source that never failed is verified, and its good signature signs in, again and again.
    for (let i = 0; i < 5; i++) assert.equal((await send("5Hot", "good", "198.51.100.1")).status, 200);
    // Another hotkey is not touched.
    assert.equal((await send("5Other", "good", "192.0.2.1")).status, 200);
  } finally {
    kv.close();
  }
});
