/**
 * A process killed while its provider call runs: the start command (as the README runs it, on a
 * KV data directory) holds the call's worst case and is SIGKILLed before the provider answers. The
 * hold stays in storage until it expires; the hold-expiry job of any instance then releases it,
 * and the organisation is never charged for the call.
 */
import assert from "node:assert/strict";
import { holdExpiryJob, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { ManualClock, silentLogger } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { addCredits, ADMIN_TOKEN, createOrg, issueKey } from "../support/access.ts";
import { FakeOpenAi } from "../support/fake_openai.ts";
import { ledgerSum } from "../support/ledger.ts";
import { FAKE_CALL, FAKE_HOLD, FAKE_KEY_ENV, providersFor } from "./gateway_service.ts";

/** Only what Deno itself needs, plus the service's settings. */
function childEnv(settings: Record<string, string>): Record<string, string> {
  const names = ["HOME", "PATH", "DENO_DIR", "TMPDIR", "XDG_CACHE_HOME"];
  const inherited = Object.fromEntries(names.flatMap((name) => {
    const value = Deno.env.get(name);
    return value === undefined ? [] : [[name, value]];
  }));
  return { ...inherited, ...settings };
}

/** Starts `scripts/service/start.ts`; resolves with its URL once it listens. */
async function start(env: Record<string, string>): Promise<{ url: string; child: Deno.ChildProcess }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../scripts/service/start.ts", import.meta.url).pathname],
    clearEnv: true,
    env: childEnv(env),
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (true) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`the service exited before listening: ${buffer}`);
    buffer += value;
    const url = /"msg":"listening","url":"([^"]+)"/.exec(buffer)?.[1];
    if (url) {
      lines.releaseLock();
      void child.stderr.cancel().catch(() => {});
      return { url, child };
    }
  }
}

Deno.test("a call whose process is killed mid-call is never charged: its hold expires and is released", async () => {
  await using fake = new FakeOpenAi();
  const dir = await Deno.makeTempDir({ prefix: "fgw_killed_" });
  const providersFile = `${dir}/providers.json`;
  await Deno.writeTextFile(providersFile, JSON.stringify(providersFor(fake)));
  const { url, child } = await start({
    FGW_PORT: "0",
    FGW_DATA_DIR: dir,
    FGW_ADMIN_TOKEN: ADMIN_TOKEN,
    FGW_IP_RPM: "0",
    FGW_MARKET_SOURCE: "snapshot",
    FGW_METAGRAPH_SOURCE: "file",
    FGW_METAGRAPH_FILE: new URL("../../actors/validators/demo_metagraph.json", import.meta.url).pathname,
    FGW_PRICES_SOURCE: "file",
    FGW_PRICES_FILE: new URL("../../actors/prices/demo_prices.json", import.meta.url).pathname,
    FGW_PROVIDERS_FILE: providersFile,
    ...FAKE_KEY_ENV,
  });
  const request = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
  const orgId = await createOrg(request);
  await addCredits(request, orgId, "1000", "initial");
  const { apiKey } = await issueKey(request, orgId, { scopes: ["gateway:write"] });
  fake.respondNext("slow");
  const call = request("/v1/gateway/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(FAKE_CALL),
  }).then((r) => r.status, () => "connection lost");
  while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  child.kill("SIGKILL");
  await child.status;
  assert.equal(await call, "connection lost");

  const storage = await openKvStorage(`${dir}/fgw.sqlite`);
  try {
    const [hold] = await storage.billing.listHolds(orgId);
    assert.equal(hold?.amountMicro, FAKE_HOLD, "the killed call's hold outlived its process");
    const clock = new ManualClock(hold!.expiresAtMs);
    const system = new ActorSystem({ clock: clock.now });
    const kind = orgActorKind({
      orgs: storage.orgs,
      billing: storage.billing,
      clock: clock.now,
      holdTtlMs: 1,
    });
    const askOrg = orgAsker(system, system.register(kind));
    const job = holdExpiryJob({ billing: storage.billing, askOrg, intervalMs: 1_000, log: silentLogger });
    await job.run(clock.now(), { signal: new AbortController().signal, fence: { job: job.name, token: 0 } });
    const account = await storage.billing.getAccount(orgId);
    assert.deepEqual([account?.balanceMicro, account?.heldMicro], [1000n, 0n], "released, not charged");
    assert.deepEqual(await storage.billing.listHolds(orgId), []);
    assert.deepEqual(await storage.billing.listUsage(orgId, { limit: 10 }), []);
    assert.equal(await ledgerSum(storage.billing, orgId), 1000n);
    await system.drain();
  } finally {
    await storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});
