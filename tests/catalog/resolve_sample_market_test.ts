/**
 * docs/events.md, "Resolving a sample market": the market it resolves is in the assignment pool of
 * a service started on the shipped snapshot, and docs/examples/resolve_sample_market.py resolves a
 * market of a copy with the winner it is given (a 3-outcome market too), or refuses a bad one.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { poolOf } from "../../actors/catalog/mod.ts";
import { runJobOnce } from "../support/jobs.ts";
import { openTestService, TEST_START_MS, type TestService } from "../support/test_service.ts";

const SHIPPED = fileURLToPath(
  new URL("../../actors/catalog/sources/polymarket_snapshot.json", import.meta.url),
);
const SCRIPT = fileURLToPath(new URL("../../docs/examples/resolve_sample_market.py", import.meta.url));
const EVENTS_DOC = new URL("../../docs/events.md", import.meta.url);
const HOUR_MS = 3_600_000;

const hasPython = await new Deno.Command("python3", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((out) => out.success, () => false);

/** A service on `snapshot` as its only market source, its clock at `startMs`, after one ingestion pass. */
async function serviceOnSnapshot(snapshot: string, startMs: number): Promise<TestService> {
  const service = await openTestService({
    env: { FGW_MARKET_SOURCE: "snapshot", FGW_SNAPSHOT_FILE: snapshot },
    clock: new ManualClock(startMs),
  });
  await ingest(service);
  return service;
}

async function ingest(service: TestService): Promise<void> {
  await runJobOnce(service.catalog.ingestion, {
    leases: service.storage.jobLeases,
    nowMs: service.clock.now(),
  });
}

function inPool(service: TestService, eventId: string): boolean {
  const at = { nowMs: service.clock.now(), rules: service.catalog.routes.pool };
  return poolOf(service.catalog.view.current(), at).some((item) => item.event.id === eventId);
}

Deno.test("the market docs/events.md resolves is in the assignment pool from the start and a day later", async () => {
  const doc = await Deno.readTextFile(EVENTS_DOC);
  const command = /resolve_sample_market\.py \S+ (\d+) (\S+)/.exec(doc);
  assert.ok(command, "docs/events.md runs the example script");
  await using service = await serviceOnSnapshot(SHIPPED, TEST_START_MS);
  const eventId = `polymarket-${command[1]}`;
  assert.ok(inPool(service, eventId), `${eventId} is in the pool at start`);
  service.clock.advance(24 * HOUR_MS);
  assert.ok(inPool(service, eventId), `${eventId} is still in the pool a day later`);
  const outcomes = service.catalog.view.current().sorted("endDate").find((item) => item.event.id === eventId)
    ?.event.outcomes.map((outcome) => outcome.name);
  assert.ok(outcomes?.includes(command[2]!), `${command[2]} is one of ${outcomes}`);
});

/** Runs the example script; its exit code and what it printed. */
async function resolveScript(...args: string[]) {
  const output = await new Deno.Command("python3", {
    args: [SCRIPT, ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder();
  return { code: output.code, stdout: text.decode(output.stdout), stderr: text.decode(output.stderr) };
}

Deno.test({
  name:
    "resolve_sample_market.py resolves a 3-outcome market with the winner it is given and refuses a bad one",
  ignore: !hasPython,
  fn: async () => {
    const copy = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.copyFile(SHIPPED, copy);
    // The service's clock at the real time: the script reads the shift off a served event.
    await using service = await serviceOnSnapshot(copy, Date.now());
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
    const base = `http://127.0.0.1:${server.addr.port}`;
    try {
      const before = await Deno.readTextFile(copy);
      const bad = await resolveScript(copy, "600293", "Chelsea", base);
      assert.equal(bad.code, 2);
      assert.match(
        bad.stderr,
        /'Chelsea' is not an outcome of market 600293: choose one of Man City, Draw, Arsenal/,
      );
      assert.equal(await Deno.readTextFile(copy), before, "nothing is written");
      const good = await resolveScript(copy, "600293", "draw", base);
      assert.equal(good.code, 0, good.stderr);
      assert.match(good.stdout, /^polymarket-600293: resolved now, Draw wins/);
      service.clock.advance(60_000);
      await ingest(service);
      const stored = await service.storage.events.get("polymarket-600293");
      assert.equal(stored?.event.resolution.resolutionStatus, "resolved");
      assert.equal(stored?.event.resolution.winningOutcomeName, "Draw");
    } finally {
      await server.shutdown();
      await Deno.remove(copy);
    }
  },
});
