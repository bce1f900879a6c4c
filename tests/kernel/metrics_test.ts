import assert from "node:assert/strict";
import { HttpClient, ManualClock, Metrics } from "../../actors/kernel/mod.ts";
import { type PeriodicJob, Scheduler } from "../../actors/runtime/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { parseSamples, sampleValue } from "../support/prometheus.ts";

const START_MS = Date.UTC(2026, 10, 20, 12);

Deno.test("the actor observer keeps mailbox depth per kind, the deepest mailbox, latency, failures and sheds", async () => {
  const metrics = new Metrics({ clock: () => START_MS });
  const { actors } = metrics;
  actors.onEnqueue("org", 1);
  actors.onEnqueue("org", 2);
  actors.onEnqueue("org", 3);
  actors.onEnqueue("event", 1);
  actors.onDone("org", 5, false);
  actors.onDone("org", 20, true);
  actors.onShed("org", "expired");
  actors.onShed("org", "full");

  const text = await metrics.render();
  const value = (name: string, labels: Record<string, string>) => sampleValue(text, name, labels);
  assert.equal(value("fgw_actor_mailbox_depth", { kind: "org" }), 0, "3 entered, 2 ran, 1 left unrun");
  assert.equal(value("fgw_actor_mailbox_depth", { kind: "event" }), 1);
  assert.equal(value("fgw_actor_mailbox_max_depth", { kind: "org" }), 3);
  assert.equal(value("fgw_actor_message_duration_seconds_count", { kind: "org" }), 2);
  assert.equal(value("fgw_actor_message_duration_seconds_sum", { kind: "org" }), 0.025);
  assert.equal(value("fgw_actor_message_duration_seconds_bucket", { kind: "org", le: "0.005" }), 1);
  assert.equal(value("fgw_actor_message_failures_total", { kind: "org" }), 1);
  assert.equal(value("fgw_actor_messages_shed_total", { kind: "org", reason: "full" }), 1);
  assert.equal(value("fgw_actor_messages_shed_total", { kind: "org", reason: "expired" }), 1);
});

Deno.test("scheduler runs feed job runs, failures, durations and the time of the last success", async () => {
  await using storage = {
    ...await openKvStorage(":memory:"),
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
  const clock = new ManualClock(START_MS);
  const metrics = new Metrics({ clock: clock.now });
  let flakyRuns = 0;
  const job = (name: string, run: () => void): PeriodicJob => ({
    name,
    intervalMs: () => 10_000,
    run: () => Promise.resolve().then(run),
  });
  const scheduler = new Scheduler({
    leases: storage.jobLeases,
    clock: clock.now,
    holder: "instance-a",
    jobs: [
      job("sync", () => clock.advance(1_500)),
      job("flaky", () => {
        if (++flakyRuns === 1) throw new Error("Cannot reach source: connection refused");
      }),
    ],
    onError: () => {},
    onRun: (name, outcome, ms) => metrics.jobRan(name, outcome, ms),
  });

  assert.deepEqual(await scheduler.tick(), ["sync", "flaky"]);
  let text = await metrics.render();
  assert.equal(sampleValue(text, "fgw_job_runs_total", { job: "sync" }), 1);
  assert.equal(sampleValue(text, "fgw_job_duration_seconds_sum", { job: "sync" }), 1.5);
  assert.equal(
    sampleValue(text, "fgw_job_last_success_timestamp_seconds", { job: "sync" }),
    START_MS / 1000 + 1.5,
  );
  assert.equal(sampleValue(text, "fgw_job_failures_total", { job: "flaky" }), 1);
  assert.equal(sampleValue(text, "fgw_job_last_success_timestamp_seconds", { job: "flaky" }), undefined);

  clock.advance(10_000);
  assert.deepEqual(await scheduler.tick(), ["sync", "flaky"]);
  text = await metrics.render();
  assert.equal(sampleValue(text, "fgw_job_runs_total", { job: "flaky" }), 2);
  assert.equal(sampleValue(text, "fgw_job_failures_total", { job: "flaky" }), 1);
  assert.equal(
    sampleValue(text, "fgw_job_last_success_timestamp_seconds", { job: "flaky" }),
    clock.now() / 1000,
  );
  await scheduler.stop();
});

Deno.test("every upstream attempt is timed by outcome and failed attempts are counted by reason", async () => {
  const answers = [503, 429, 404, 200];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    return new Response("answer", { status: answers.shift() ?? 200 });
  });
  const metrics = new Metrics({ clock: () => START_MS });
  const client = new HttpClient({
    upstream: "fake",
    observer: metrics.upstreams,
    sleep: () => Promise.resolve(),
  });
  const url = `http://127.0.0.1:${server.addr.port}/`;
  await assert.rejects(client.request(url), { name: "UpstreamError", status: 404 });
  await client.request(url);

  const text = await metrics.render();
  const attempts = (outcome: string) =>
    sampleValue(text, "fgw_upstream_request_duration_seconds_count", { upstream: "fake", outcome });
  assert.deepEqual(["5xx", "4xx", "2xx"].map(attempts), [1, 2, 1]);
  const errors = parseSamples(text).filter((sample) => sample.name === "fgw_upstream_errors_total");
  assert.deepEqual(
    errors.map(({ labels, value }) => [labels.upstream, labels.reason, value]).toSorted(),
    [["fake", "429", 1], ["fake", "5xx", 1]],
    "a 404 is the request's fault, not an upstream error",
  );
});
