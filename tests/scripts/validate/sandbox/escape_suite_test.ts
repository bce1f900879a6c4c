/**
 * The escape suite (docs/agents.md, "The escape suite"): every hostile agent of
 * scripts/validate/sandbox/escape_checks.ts runs through `deno task validate` (its own process,
 * the signing secret in its environment) against services on 127.0.0.1. Each must do no harm, the
 * validator must go on to the next, and each run must end as its result says. Then some of the
 * same agents run without the sandbox, where the checks must catch them: a check that cannot fail
 * would prove nothing. The relay checks' calls go to the service's own validator completions route
 * (billed to the miners' organisation, which has credits): what the relay forwards meets the
 * service's lease and cap checks as in production. The service's refusals through a relay are
 * also ../relay_service_test.ts.
 */
import assert from "node:assert/strict";
import { signerFromSecretHex } from "../../../../actors/validators/mod.ts";
import { ESCAPE_CHECKS, type EscapeCheck } from "../../../../scripts/validate/sandbox/escape_checks.ts";
import { observeIdentity } from "../../../../scripts/validate/sandbox/escape_observer.ts";
import { verdictOf } from "../../../../scripts/validate/sandbox/escape_verdict.ts";
import {
  type EscapeWorld,
  openEscapeWorld,
  postgresPort,
} from "../../../../scripts/validate/sandbox/escape_world.ts";
import { allLedgerEntries, ledgerSum } from "../../../support/ledger.ts";
import { type GroupResult, runGroup, serveLoop } from "../../../support/escape_group.ts";
import { needsSandbox, sandboxHost } from "../../../support/sandbox_host.ts";

/** The validator's signing secret: the canary every environment the agents can read is searched for. */
const SECRET = "7c".repeat(32);
const VALIDATOR = signerFromSecretHex(SECRET);
const HOST = { postgresPort: await postgresPort() };
/**
 * Short for the agents meant to overrun; generous for the others (the machine may be loaded). The
 * overrun group (one agent) runs beside the other, which takes longer: 15 s costs the suite nothing
 * and leaves a loaded machine time to start the run (a run not started within its limit is the
 * validator's failure, which ends the group's validator).
 */
const OVERRUN_MS = 15_000;
const GENEROUS_MS = 120_000;
/** Agents that do harm without the sandbox, and that their checks must catch there. */
const CAUGHT_UNSANDBOXED = ["environ", "files", "processes", "tcp-service", "udp", "host-sockets", "symlink"];

/**
 * The runnable checks in two groups, each with its own service and validator process (one run at
 * a time each: the suite shares the machine with the rest of the tests).
 */
function groups(): { checks: EscapeCheck[]; timeoutMs: number }[] {
  const runnable = ESCAPE_CHECKS.filter((check) => !check.skip?.(HOST));
  return [
    { checks: runnable.filter((check) => !check.overrun), timeoutMs: GENEROUS_MS },
    { checks: runnable.filter((check) => check.overrun), timeoutMs: OVERRUN_MS },
  ];
}

async function checkStep(
  t: Deno.TestContext,
  check: EscapeCheck,
  world: EscapeWorld,
  results: GroupResult[],
) {
  const skip = check.skip?.(HOST) ?? null;
  await t.step({
    name: skip === null ? check.title : `${check.title} (ignored: ${skip})`,
    ignore: skip !== null,
    fn: async () => {
      const report = results.map((result) => result.reports.get(check.id)).find(Boolean);
      assert.ok(report, `no turn of the validator ran the agent of ${check.id}`);
      const verdict = verdictOf(check, report, await check.outside?.(world) ?? []);
      assert.ok(verdict.pass, verdict.detail);
    },
  });
}

Deno.test({
  ...needsSandbox("the escape suite: hostile agents, run by the validator against a service, do no harm"),
  fn: async (t) => {
    await sandboxHost(); // the host check first: its problems, if any, are this test's failure
    const planned = groups();
    const served = await Promise.all(
      planned.map(({ checks }, index) => serveLoop(VALIDATOR, checks.length, `escape-${index}`)),
    );
    const world = await openEscapeWorld({ secret: SECRET, servicePort: served[0]!.port });
    for (const loop of served) loop.world = world;
    const observing = new AbortController();
    const observer = observeIdentity(world, observing.signal);
    try {
      const results = await Promise.all(
        planned.map(({ checks, timeoutMs }, index) =>
          runGroup(served[index]!, checks, world, { secret: SECRET, timeoutMs })
        ),
      );
      observing.abort();
      await observer;
      await t.step("the validator ran every agent, submitted each and went on to the end", () => {
        for (const result of results) {
          assert.equal(result.status, 0, result.stderr);
          assert.equal(result.lastOutcome, "none_available", result.stderr);
        }
      });
      await t.step(
        "the relayed calls within the limits were billed to the miners' organisation",
        async () => {
          const { billing } = served[0]!.loop.service.storage;
          const entries = await allLedgerEntries(billing, served[0]!.loop.orgId);
          const debits = entries.filter((entry) => entry.kind === "debit").length;
          assert.ok(debits > 0, "no relayed call was billed");
          const ledger = await ledgerSum(billing, served[0]!.loop.orgId);
          assert.equal((await billing.getAccount(served[0]!.loop.orgId))?.balanceMicro, ledger);
        },
      );
      for (const check of ESCAPE_CHECKS) await checkStep(t, check, world, results);
    } finally {
      observing.abort();
      await world.close();
      await Promise.all(served.map((loop) => loop.close()));
    }
  },
});

Deno.test({
  ...needsSandbox("without the sandbox the same checks catch the agents (so they can fail)"),
  fn: async () => {
    const checks = ESCAPE_CHECKS.filter((check) => CAUGHT_UNSANDBOXED.includes(check.id));
    const served = await serveLoop(VALIDATOR, checks.length, "unsandboxed");
    const world = await openEscapeWorld({ secret: SECRET, servicePort: served.port });
    try {
      const args = ["--unsafe-no-sandbox", "--python", "/usr/bin/python3"];
      const result = await runGroup(served, checks, world, { secret: SECRET, timeoutMs: GENEROUS_MS, args });
      assert.equal(result.status, 0, result.stderr);
      for (const check of checks) {
        const report = result.reports.get(check.id);
        assert.ok(report, `no turn ran the agent of ${check.id}`);
        const verdict = verdictOf(check, report, await check.outside?.(world) ?? []);
        assert.equal(verdict.pass, false, `${check.id} passed without the sandbox: ${verdict.detail}`);
      }
    } finally {
      await world.close();
      await served.close();
    }
  },
});
