import assert from "node:assert/strict";
import { Hono } from "hono";
import { ServiceError, silentLogger } from "../../actors/kernel/mod.ts";
import { onError } from "../../routes/middleware/error_handler.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { WriteConflictError } from "../../storage/retry_conditional.ts";
import type { Storage } from "../../storage/storage.ts";
import { ADMIN_TOKEN, adminInit, createOrg, errorCode, overriding } from "../support/access.ts";
import { openTestService } from "../support/test_service.ts";

/** In-memory storage whose account reads wait for `open()` while `closed` (the org's mailbox stays busy). */
async function slowAccountStorage(): Promise<{ storage: Storage; close(): void; open(): void }> {
  const storage = await openKvStorage(":memory:");
  let gate: PromiseWithResolvers<void> | null = null;
  const billing = overriding(storage.billing, {
    getAccount: async (orgId: string) => {
      await gate?.promise;
      return await storage.billing.getAccount(orgId);
    },
  });
  return {
    storage: { ...storage, billing },
    close: () => gate = Promise.withResolvers(),
    open: () => gate?.resolve(),
  };
}

Deno.test("a request to an actor whose mailbox is full answers 503 unavailable with Retry-After", async () => {
  const slow = await slowAccountStorage();
  await using service = await openTestService({
    env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_ACTOR_MAX_PENDING: "1" },
    storage: slow.storage,
  });
  const orgId = await createOrg(service.request);
  slow.close();
  const first = service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"));
  const refused = await service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"));
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.equal(await errorCode(refused), "unavailable");
  slow.open();
  assert.equal((await first).status, 200);
});

Deno.test("a request whose actor does not answer in time answers 503 unavailable with Retry-After", async () => {
  const slow = await slowAccountStorage();
  await using service = await openTestService({
    env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_ACTOR_TIMEOUT_MS: "1000" },
    storage: slow.storage,
  });
  const orgId = await createOrg(service.request);
  slow.close();
  const response = await service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"));
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "1");
  assert.equal(await errorCode(response), "unavailable");
  slow.open();
});

/** A bare app with the service's error handler and one route that throws `error`. */
function throwing(error: Error): Hono {
  const app = new Hono();
  app.onError(onError(silentLogger));
  app.get("/", () => {
    throw error;
  });
  return app;
}

Deno.test("503 unavailable always carries Retry-After, even when the error names no delay", async () => {
  const response = await throwing(new ServiceError("unavailable", "Busy")).request("/");
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "1");
});

Deno.test("a storage write that kept losing its race answers 409 conflict, not 500", async () => {
  const error = new WriteConflictError(
    "Cannot commit to account org_1: it kept changing under concurrent writers",
  );
  const response = await throwing(error).request("/");
  assert.equal(response.status, 409);
  assert.equal(response.headers.get("retry-after"), "1");
  const body = await response.json() as { error: { code: string; message: string } };
  assert.deepEqual(body.error, { code: "conflict", message: error.message });
});
