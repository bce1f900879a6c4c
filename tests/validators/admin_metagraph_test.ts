import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { MetagraphSnapshot, MetagraphSource } from "../../actors/validators/mod.ts";
import { AdminMetagraphSchema } from "../../routes/validators/admin_metagraph.ts";
import { ADMIN_TOKEN, adminInit, errorCode } from "../support/access.ts";
import { runJobOnce } from "../support/jobs.ts";
import { hotkeyOf, metagraphOf, neuronAt } from "../support/neurons.ts";
import { openTestService, TEST_START_MS, type TestService } from "../support/test_service.ts";

const DEMO = fileURLToPath(new URL("../../actors/validators/demo_metagraph.json", import.meta.url));
const ENV = { FGW_ADMIN_TOKEN: ADMIN_TOKEN };
const INTERVAL_MS = 300_000;

/** A source that answers whatever `current` holds. */
function settableSource(first: MetagraphSnapshot): MetagraphSource & { current: MetagraphSnapshot } {
  return {
    name: "test",
    current: first,
    fetch() {
      return Promise.resolve(this.current);
    },
  };
}

async function sync(service: TestService): Promise<void> {
  await runJobOnce(service.metagraph.sync, { leases: service.storage.jobLeases, nowMs: service.clock.now() });
}

async function getMetagraph(service: TestService) {
  const response = await service.request("/admin/v1/metagraph", adminInit("GET"));
  assert.equal(response.status, 200);
  return AdminMetagraphSchema.strict().parse(await response.json());
}

Deno.test("before any sync the admin metagraph is empty and flagged stale (never synced)", async () => {
  await using service = await openTestService({ env: ENV });
  assert.deepEqual(await getMetagraph(service), {
    netuid: 41,
    source: "subtensor",
    block: null,
    lastSyncAt: null,
    status: "never_synced",
    stale: true,
    neuronCount: 0,
    neurons: [],
  });
});

Deno.test("after a sync of the demo file the admin metagraph shows every neuron as docs/validators.md states", async () => {
  await using service = await openTestService({
    env: { ...ENV, FGW_METAGRAPH_SOURCE: "file", FGW_METAGRAPH_FILE: DEMO },
  });
  await sync(service);
  const body = await getMetagraph(service);
  assert.equal(body.source, "file");
  assert.equal(body.block, 6_852_690);
  assert.equal(body.lastSyncAt, new Date(TEST_START_MS).toISOString());
  assert.equal(body.status, "fresh");
  assert.equal(body.stale, false);
  assert.equal(body.neuronCount, 11);
  assert.deepEqual(body.neurons.map((n) => n.uid), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.deepEqual(body.neurons[0], {
    uid: 0,
    hotkey: "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi",
    coldkey: "5CtGxdo8gw7v9K2iJ4cUZdWJ5JoNAvy8DNt2rUhLM65sj8VF",
    active: true,
    validatorPermit: true,
    stake: "312460092414791",
    emission: 15.594809233,
    incentive: 0,
    dividends: 0.380346,
    lastUpdate: "6852650",
    firstSeenAt: new Date(TEST_START_MS).toISOString(),
  });
  assert.equal(body.neurons[4]?.incentive, 0.25);
});

Deno.test("stake beyond 2^53 rao is shown exactly; a uid taken by a new hotkey shows its own firstSeenAt", async () => {
  const source = settableSource(metagraphOf(3, { validators: [1] }));
  await using service = await openTestService({ env: ENV, metagraphSource: source });
  await sync(service);
  service.clock.advance(INTERVAL_MS);
  source.current = {
    netuid: 41,
    block: 6_852_715,
    neurons: [neuronAt(0), neuronAt(1, { validator: true }), neuronAt(2, { hotkey: "new" })],
  };
  await sync(service);
  const body = await getMetagraph(service);
  assert.equal(body.neurons[1]?.stake, (2n ** 63n + 1n).toString());
  assert.deepEqual(body.neurons.map((n) => [n.hotkey, n.firstSeenAt]), [
    [hotkeyOf(0), new Date(TEST_START_MS).toISOString()],
    [hotkeyOf(1), new Date(TEST_START_MS).toISOString()],
    [hotkeyOf("new"), new Date(TEST_START_MS + INTERVAL_MS).toISOString()],
  ]);
});

Deno.test("the admin metagraph turns stale after three intervals without a successful sync", async () => {
  const source = settableSource(metagraphOf(2));
  await using service = await openTestService({ env: ENV, metagraphSource: source });
  await sync(service);
  service.clock.advance(3 * INTERVAL_MS + 1);
  const body = await getMetagraph(service);
  assert.equal(body.status, "stale");
  assert.equal(body.stale, true);
  assert.equal(body.neuronCount, 2, "the last synced metagraph is still shown");
  assert.equal(body.lastSyncAt, new Date(TEST_START_MS).toISOString());
});

Deno.test("the admin metagraph needs the admin token, and does not exist without one configured", async () => {
  await using service = await openTestService({ env: ENV });
  const anonymous = await service.request("/admin/v1/metagraph");
  assert.equal(anonymous.status, 401);
  assert.equal(await errorCode(anonymous), "unauthenticated");
  await using off = await openTestService();
  const response = await off.request("/admin/v1/metagraph", adminInit("GET"));
  assert.equal(response.status, 404);
  assert.equal(await errorCode(response), "not_found");
});
