import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { LogLine } from "../../actors/kernel/mod.ts";
import { loadConfig } from "../../scripts/service/config.ts";
import { createService } from "../../scripts/service/service.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { KeyUsageStore } from "../../storage/key_usage_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import { TEST_START_MS } from "../support/test_service.ts";
import { ADMIN_TOKEN, adminInit, createOrg, issueKey, keyInit, overriding } from "../support/access.ts";
import { refusedConnectionError } from "../support/storage_outage.ts";

Deno.test("storage that cannot be reached answers 503 unavailable with Retry-After, logged, and recovers", async () => {
  const outage = await refusedConnectionError();
  const failing = { on: false };
  const storage = await openKvStorage(":memory:");
  const usage = storage.keyUsage;
  const count: KeyUsageStore["count"] = (...args) =>
    failing.on ? Promise.reject(outage) : usage.count(...args);
  const orgs = storage.orgs;
  const create: OrgStore["create"] = (...args) => failing.on ? Promise.reject(outage) : orgs.create(...args);
  const logged: LogLine[] = [];
  const service = await createService(
    loadConfig({ FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_IP_RPM: "0" }),
    {
      clock: new ManualClock(TEST_START_MS).now,
      log: (line) => logged.push(line),
      storage: { ...storage, keyUsage: overriding(usage, { count }), orgs: overriding(orgs, { create }) },
    },
  );
  try {
    const request = (path: string, init?: RequestInit) => Promise.resolve(service.app.request(path, init));
    const issued = await issueKey(request, await createOrg(request));
    failing.on = true;
    const answers = [
      await request("/v1/credits/balance", keyInit(issued.apiKey)),
      await request("/admin/v1/orgs", adminInit("POST", { name: "later" })),
    ];
    for (const answer of answers) {
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.get("retry-after"), "2");
      const body = await answer.json();
      assert.equal(body.error.code, "unavailable");
      assert.equal(typeof body.requestId, "string");
    }
    assert.equal(logged.filter((line) => line.msg === "storage unavailable").length, 2);
    failing.on = false;
    assert.equal((await request("/v1/credits/balance", keyInit(issued.apiKey))).status, 200);
  } finally {
    await service.close();
  }
});
