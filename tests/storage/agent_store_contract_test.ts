import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { AgentStore, UploadOutcome } from "../../storage/agent_store.ts";
import { adapterTest } from "../support/adapters.ts";

const AT = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const MINER_A = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
const MINER_B = "5Fpfx4iDtrrY99VGkQnLXASytC2y9Z3o8KUyTtD4w7o5SZcA";

let nextId = 0;

/** An upload of `code` with a fresh version id. */
function agent(code: string, name: string | null = null) {
  const bytes = utf8ToBytes(code);
  return {
    versionId: `agv_${++nextId}`,
    sha256: bytesToHex(sha256(bytes)),
    sizeBytes: bytes.length,
    name,
    code,
  };
}

function created(outcome: UploadOutcome) {
  assert.equal(outcome.outcome, "created", JSON.stringify(outcome));
  return (outcome as Extract<UploadOutcome, { outcome: "created" }>).version;
}

async function upload(store: AgentStore, miner: string, code: string, nowMs: number) {
  return await store.upload(miner, agent(code), { nowMs, cooldownMs: DAY });
}

adapterTest("agent store keeps a new version with its code and makes it current", async ({ storage }) => {
  const first = agent("def agent_main(event):\n    return {}\n", "first");
  const version = created(await storage.agents.upload(MINER_A, first, { nowMs: AT, cooldownMs: DAY }));
  assert.deepEqual(version, {
    versionId: first.versionId,
    minerHotkey: MINER_A,
    sha256: first.sha256,
    sizeBytes: first.sizeBytes,
    name: "first",
    createdAtMs: AT,
  });
  assert.deepEqual(await storage.agents.get(first.versionId), { ...version, code: first.code });
  assert.deepEqual(await storage.agents.minerState(MINER_A), {
    currentVersionId: first.versionId,
    lastUploadAtMs: AT,
  });
  assert.deepEqual(await storage.agents.findBySha256(MINER_A, first.sha256), version);
  assert.equal(await storage.agents.findBySha256(MINER_B, first.sha256), null);
  assert.equal(await storage.agents.get("agv_missing"), null);
  assert.equal(await storage.agents.minerState(MINER_B), null);
  assert.deepEqual(await storage.agents.listVersions(MINER_B), []);
});

adapterTest(
  "agent store answers identical code with the existing version, writing nothing",
  async ({ storage }) => {
    const original = created(await upload(storage.agents, MINER_A, "def agent_main(e): pass\n", AT));
    const again = agent("def agent_main(e): pass\n", "renamed");
    // Within the cooldown and after it: the digest decides, not the clock.
    for (const nowMs of [AT + 1, AT + 2 * DAY]) {
      const outcome = await storage.agents.upload(MINER_A, again, { nowMs, cooldownMs: DAY });
      assert.deepEqual(outcome, { outcome: "existing", version: original, current: true });
    }
    assert.equal(await storage.agents.get(again.versionId), null);
    assert.deepEqual(await storage.agents.listVersions(MINER_A), [original]);
    assert.equal((await storage.agents.minerState(MINER_A))?.lastUploadAtMs, AT, "cooldown not restarted");
    // Another miner with the same code has its own version.
    created(await upload(storage.agents, MINER_B, "def agent_main(e): pass\n", AT + 1));
  },
);

adapterTest(
  "agent store refuses a new version within the cooldown and takes it after",
  async ({ storage }) => {
    const first = created(await upload(storage.agents, MINER_A, "def agent_main(e): return 1\n", AT));
    assert.deepEqual(await upload(storage.agents, MINER_A, "def agent_main(e): return 2\n", AT + DAY - 1), {
      outcome: "cooldown",
      lastUploadAtMs: AT,
      retryAtMs: AT + DAY,
    });
    const second = created(await upload(storage.agents, MINER_A, "def agent_main(e): return 2\n", AT + DAY));
    assert.deepEqual(await storage.agents.listVersions(MINER_A), [second, first]);
    assert.deepEqual(await storage.agents.minerState(MINER_A), {
      currentVersionId: second.versionId,
      lastUploadAtMs: AT + DAY,
    });
    // The older version's code is an existing version, not the current one.
    const back = await upload(storage.agents, MINER_A, "def agent_main(e): return 1\n", AT + 3 * DAY);
    assert.deepEqual(back, { outcome: "existing", version: first, current: false });
    // Another miner's cooldown is its own.
    created(await upload(storage.agents, MINER_B, "def agent_main(e): return 3\n", AT + DAY));
  },
);

adapterTest(
  "agent store keeps code over 1 MiB exactly, multi-byte characters included",
  async ({ storage }) => {
    const line = "# é ✓ 😀 — a comment line that is long enough to matter here\n";
    const code = line.repeat(Math.ceil(1_048_576 / utf8ToBytes(line).length)) + "def agent_main(e): pass\n";
    const big = agent(code);
    assert.ok(big.sizeBytes > 1_048_576);
    created(await storage.agents.upload(MINER_A, big, { nowMs: AT, cooldownMs: DAY }));
    const stored = await storage.agents.get(big.versionId);
    assert.equal(stored?.code, code);
    assert.equal(stored?.sizeBytes, big.sizeBytes);
  },
);

adapterTest(
  "agent store gives exactly one of two racing uploads of one miner, across two handles",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    for (let round = 0; round < 5; round++) {
      const miner = round % 2 === 0 ? MINER_A : MINER_B;
      const nowMs = AT + round * 2 * DAY;
      const outcomes = await Promise.all([
        adapter.storage.agents.upload(miner, agent(`def agent_main(e): return ${round}1\n`), {
          nowMs,
          cooldownMs: DAY,
        }),
        other.agents.upload(miner, agent(`def agent_main(e): return ${round}2\n`), {
          nowMs,
          cooldownMs: DAY,
        }),
      ]);
      const kinds = outcomes.map((outcome) => outcome.outcome).toSorted();
      assert.deepEqual(kinds, ["cooldown", "created"], `round ${round}`);
      const winner = outcomes.find((outcome) => outcome.outcome === "created");
      const versions = await adapter.storage.agents.listVersions(miner);
      assert.equal(versions[0]?.versionId, winner?.outcome === "created" ? winner.version.versionId : null);
      assert.equal((await other.agents.minerState(miner))?.currentVersionId, versions[0]?.versionId);
    }
    assert.equal((await adapter.storage.agents.listVersions(MINER_A)).length, 3);
    assert.equal((await adapter.storage.agents.listVersions(MINER_B)).length, 2);
  },
);

adapterTest("agent store makes one version of identical code uploaded twice at once", {
  needs: "concurrency",
}, async (adapter) => {
  const other = await adapter.openAnother();
  const code = "async def agent_main(event):\n    return None\n";
  const outcomes = await Promise.all([
    adapter.storage.agents.upload(MINER_A, agent(code), { nowMs: AT, cooldownMs: 0 }),
    other.agents.upload(MINER_A, agent(code), { nowMs: AT, cooldownMs: 0 }),
  ]);
  assert.deepEqual(outcomes.map((outcome) => outcome.outcome).toSorted(), ["created", "existing"]);
  const versions = await adapter.storage.agents.listVersions(MINER_A);
  assert.equal(versions.length, 1);
  assert.equal((await adapter.storage.agents.get(versions[0]!.versionId))?.code, code);
});
