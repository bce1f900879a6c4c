/**
 * The LLM example agent, end to end through the service itself (served on a local port): a miner
 * of an organisation with credits uploads it, the reference validator runs it sandboxed, its call
 * goes through the run's relay to the service's validator completions route (the echo provider),
 * and is billed to the miner's organisation (balance, ledger debit, usage record naming the lease
 * and the validator); the submission is stored, and once the event is resolved and scored, the
 * scored-prediction row and the scored event's miner row show the run's calls and their cost.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ScoredEventPage } from "../../../../routes/scoring/scored_events_api.ts";
import { ScoredPredictionPage } from "../../../../routes/scoring/scored_predictions_api.ts";
import { sandboxName, sandboxStarter } from "../../../../scripts/validate/sandbox/mod.ts";
import { AGENT_LIB_DIR, validateOnce } from "../../../../scripts/validate/validate.ts";
import { usageOf } from "../../../gateway/gateway_service.ts";
import { addCredits } from "../../../support/access.ts";
import { adapterTest } from "../../../support/adapters.ts";
import { putEvents, resolved } from "../../../support/events.ts";
import { runJobOnce } from "../../../support/jobs.ts";
import { allLedgerEntries } from "../../../support/ledger.ts";
import { SANDBOX_IGNORED, sandboxHost } from "../../../support/sandbox_host.ts";
import { serveService } from "../../../support/served_service.ts";
import { openLoop, signedInit, testSigner, uploadAgent } from "../../../support/validator_loop.ts";

const VALIDATOR = testSigner("billed-llm-validator");
const MINER = testSigner("billed-llm-miner");
const LLM_EXAMPLE = await Deno.readTextFile(
  fileURLToPath(new URL("../../../../docs/examples/llm_agent_example.py", import.meta.url)),
);
const CREDIT = 1_000_000n;
const FEED = "/v1/validators/scored-predictions?days=1";
/** Generous: the machine may be loaded by other tests. */
const TIMEOUT_MS = 120_000;

adapterTest(
  "a sandboxed run of the LLM example is billed to the miner's org through the service, names its lease, and shows on its scored rows",
  { ignoredBecause: SANDBOX_IGNORED },
  async (adapter) => {
    const host = await sandboxHost();
    const loop = await openLoop({
      validators: [VALIDATOR],
      miners: [MINER],
      events: 1,
      storage: adapter.storage,
    });
    const { service } = loop;
    try {
      await addCredits(service.request, loop.orgId, String(CREDIT), "miner-org");
      service.clock.advance(1_000);
      await uploadAgent(service.storage, MINER.hotkey, LLM_EXAMPLE, service.clock.now());
      await loop.sync();
      await using served = serveService(service);

      const result = await validateOnce({
        base: served.base,
        signer: VALIDATOR,
        fetch: (url, init) => fetch(url, init),
        nowMs: service.clock.now,
        run: { starter: sandboxStarter(host, { libDir: AGENT_LIB_DIR }), timeoutMs: TIMEOUT_MS },
      });
      assert.ok(result.outcome === "submitted" && result.failure === null, JSON.stringify(result));
      assert.deepEqual([result.llmCalls, result.sandbox], [1, sandboxName(host)]);
      const cost = BigInt(result.llmCostMicro);
      assert.ok(cost > 0n, result.llmCostMicro);
      const lease = result.agentPredictionId;

      // Billed to the miner's org: the balance, one debit, a usage record naming the validator and the lease.
      const { billing } = service.storage;
      assert.equal((await billing.getAccount(loop.orgId))?.balanceMicro, CREDIT - cost);
      const debits = (await allLedgerEntries(billing, loop.orgId)).filter((e) => e.kind === "debit");
      assert.deepEqual(debits.map((d) => -d.amountMicro), [cost]);
      const usage = await usageOf(service.request, loop.orgId);
      assert.equal(usage.length, 1);
      const metadata = usage[0]?.metadata as Record<string, unknown>;
      assert.deepEqual(
        [usage[0]?.minerHotkey, metadata.validatorHotkey, metadata.agentPredictionId],
        [MINER.hotkey, VALIDATOR.hotkey, lease],
      );

      // The submission is stored; the echo provider answered the agent's own prompt.
      const stored = await service.storage.assignments.getPrediction(lease);
      assert.equal(stored?.validation.isValid, true, JSON.stringify(stored?.validation));
      const trace = await service.storage.assignments.getTrace(lease) as {
        trace: { reasoning: { llm: Record<string, unknown> } };
      };
      assert.match(String(trace.trace.reasoning.llm.answer), /Outcomes \(id: name, market price\)/);

      // The event resolves; the scoring job scores it; both rows read the call from the usage records.
      const [event] = loop.events;
      service.clock.advance(1_000);
      await putEvents(service.storage, [resolved(event!, service.clock.now())], service.clock.now());
      service.clock.advance(1_000);
      await runJobOnce(service.scoring.job, {
        leases: service.storage.jobLeases,
        nowMs: service.clock.now(),
      });
      const feed = await service.request(
        FEED,
        signedInit(VALIDATOR, "GET", FEED, { nowMs: service.clock.now() }),
      );
      assert.equal(feed.status, 200);
      const [row] = ScoredPredictionPage.parse(await feed.json()).items;
      assert.equal(row?.agentPredictionId, lease);
      assert.deepEqual([row?.llmCalls, row?.llmCostMicro], [1, String(cost)]);
      const scored = await service.request(`/v1/events/scored?minerHotkey=${MINER.hotkey}`);
      assert.equal(scored.status, 200);
      const [item] = ScoredEventPage.parse(await scored.json()).items;
      const minerRow = item?.miners.find((m) => m.hotkey === MINER.hotkey);
      assert.deepEqual([item?.eventId, minerRow?.llmCalls, minerRow?.llmCostMicro], [
        event?.id,
        1,
        String(cost),
      ]);
    } finally {
      await service.actors.drain();
    }
  },
);
