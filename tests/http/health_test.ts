import assert from "node:assert/strict";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { overriding } from "../support/access.ts";
import { openTestService } from "../support/test_service.ts";

Deno.test("readyz answers 503 not_ready naming the failing check, with Retry-After", async () => {
  const storage = await openKvStorage(":memory:");
  const unreachable = overriding(storage, { ping: () => Promise.reject(new Error("storage is down")) });
  await using service = await openTestService({ storage: unreachable });
  const response = await service.request("/readyz");
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "5");
  const body = await response.json();
  assert.equal(body.error.code, "not_ready");
  assert.equal(body.error.details.checks.storage, false);
  const live = await service.request("/healthz");
  assert.deepEqual(await live.json(), { status: "ok" });
});
