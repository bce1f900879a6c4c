import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { LogLine } from "../../actors/kernel/mod.ts";
import { loadConfig } from "../../scripts/service/config.ts";
import { createService } from "../../scripts/service/service.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { KeyUsageStore } from "../../storage/key_usage_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { TEST_START_MS } from "../support/test_service.ts";
import { ADMIN_TOKEN, adminInit, createOrg, issueKey, keyInit, overriding } from "../support/access.ts";

const CONSOLE_METHODS = ["log", "error", "warn", "info", "debug"] as const;

/** Collects everything written through `console.*` while `fn` runs. */
async function capturingConsole(lines: string[], fn: () => Promise<void>): Promise<void> {
  const saved = CONSOLE_METHODS.map((name) => console[name]);
  for (const name of CONSOLE_METHODS) {
    console[name] = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  }
  try {
    await fn();
  } finally {
    CONSOLE_METHODS.forEach((name, i) => console[name] = saved[i]!);
  }
}

/** The storage, except that key lookups and checks throw while `failing.on` (to exercise the 500 log path). */
function flakyKeys(storage: Storage, failing: { on: boolean }): Storage {
  const unavailable = () => Promise.reject(new Error("storage unavailable"));
  const keys = storage.apiKeys;
  const get = (keyId: string) => failing.on ? unavailable() : keys.get(keyId);
  const real = storage.keyUsage;
  const count: KeyUsageStore["count"] = (keyId, use) => failing.on ? unavailable() : real.count(keyId, use);
  return { ...storage, apiKeys: overriding(keys, { get }), keyUsage: overriding(real, { count }) };
}

Deno.test("no API key or secret ever appears in the log output, even on failures", async () => {
  const logged: LogLine[] = [];
  const printed: string[] = [];
  const failing = { on: false };
  const storage = await openKvStorage(":memory:");
  const config = loadConfig({ FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_IP_RPM: "0", FGW_LOG_LEVEL: "debug" });
  const service = await createService(config, {
    clock: new ManualClock(TEST_START_MS).now,
    log: (line) => logged.push(line),
    storage: flakyKeys(storage, failing),
  });
  const keys: string[] = [];
  await capturingConsole(printed, async () => {
    const request = (path: string, init?: RequestInit) => Promise.resolve(service.app.request(path, init));
    const orgId = await createOrg(request);
    const issued = await issueKey(request, orgId, { rateLimitRpm: 2 });
    keys.push(issued.apiKey);
    for (let i = 0; i < 3; i++) await request("/v1/credits/balance", keyInit(issued.apiKey));
    const rotated = await (await request(`/admin/v1/keys/${issued.key.keyId}/rotate`, adminInit("POST")))
      .json();
    keys.push(rotated.apiKey);
    await request("/v1/credits/balance", keyInit(issued.apiKey));
    failing.on = true;
    const broken = await request("/v1/credits/balance", keyInit(rotated.apiKey));
    assert.equal(broken.status, 500);
  });
  await service.close();
  const output = [...logged.map((line) => JSON.stringify(line)), ...printed].join("\n");
  assert.ok(logged.some((line) => line.level === "error"), "the failure was logged");
  for (const key of keys) {
    assert.ok(!output.includes(key), "a full key was logged");
    assert.ok(!output.includes(key.slice(-43)), "a secret was logged");
  }
  assert.ok(!output.includes(ADMIN_TOKEN), "the admin token was logged");
});
