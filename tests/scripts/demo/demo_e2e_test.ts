/**
 * `deno task demo` end to end, as a user runs it: within its time the board shows two demo miners
 * with different scores above 0 and a scored consensus baseline, there are scored events (the LLM
 * miner's calls charged, the consensus forecast in their history) and a consensus for the printed
 * key; the printed pages answer; SIGINT stops it with status 0 and removes its folder. It runs the
 * validator's sandbox where the host has it, else its unsafe mode, so it needs python3.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import { type Board, fetchBoard, scoredAboveZero } from "../../../scripts/demo/demo_board.ts";
import { DEMO_MINERS } from "../../../scripts/demo/demo_miners.ts";
import { lines } from "../../../scripts/demo/lines.ts";
import { pythonTest } from "../../support/python.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Generous: the suite's other parts share the machine's CPUs with the demo's processes. */
const WITHIN_MS = 180_000;

/** The demo's stdout, line by line as it comes, with a wait for the first line matching a pattern. */
class Transcript {
  readonly lines: string[] = [];
  readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = (async () => {
      for await (const line of lines(stream)) this.lines.push(line);
    })();
  }

  async waitFor(pattern: RegExp, deadline: number): Promise<RegExpExecArray> {
    while (Date.now() < deadline) {
      for (const line of this.lines) {
        const match = pattern.exec(line);
        if (match) return match;
      }
      await delay(200);
    }
    throw new Error(`The demo never printed ${pattern}:\n${this.lines.join("\n")}`);
  }
}

pythonTest({
  name:
    "deno task demo prints an owner's dashboard invitation, scores two miners and the consensus baseline, scores events with their consensus, and SIGINT removes its folder",
  fn: async () => {
    const deadline = Date.now() + WITHIN_MS;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "scripts/demo/demo.ts", "--port", "0"],
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const transcript = new Transcript(child.stdout);
    try {
      const [, base, folder] = await transcript.waitFor(
        /^Service +(http:\/\/127\.0\.0\.1:\d+) +\(Deno KV in (\S+),/,
        deadline,
      );
      const [apiKey] = await transcript.waitFor(/fgw_[0-9a-f]{24}_[A-Za-z0-9_-]{43}/, deadline);
      const [, methodology] = await transcript.waitFor(/^ +(http\S+\/methodology) /, deadline);
      const [, minerPage] = await transcript.waitFor(/^ +(http\S+\/miners\/5\w+) +a miner's page/, deadline);
      const [, invitationPath] = await transcript.waitFor(
        /^ +http:\/\/localhost:\d+(\/dashboard\/invitations\/\S+)$/,
        deadline,
      );
      const invitation = await fetch(`${base}${invitationPath}`, { headers: { accept: "text/html" } });
      assert.equal(invitation.status, 200, "the owner's invitation opens");
      assert.match(await invitation.text(), /Accept your invitation/);
      for (const page of [methodology!, minerPage!]) {
        const response = await fetch(page);
        await response.body?.cancel();
        assert.equal(response.status, 200, `${page} answers`);
      }
      await transcript.waitFor(/^First non-zero score after \d+\.\d s/, deadline);
      const scores = await twoDifferentScores(base!, deadline);
      assert.ok(scores[0]! > scores[1]! && scores[1]! > 0, `${scores}`);
      const consensus = await consensusBaseline(base!, deadline);
      assert.ok(consensus.validPreds > 0 && (consensus.brier ?? 0) > 0, JSON.stringify(consensus));

      const scored = await (await fetch(`${base}/v1/events/scored?limit=25&miners=10`)).json();
      assert.ok(scored.items.length > 0, "there are scored events");
      const llmMiner = DEMO_MINERS.find((miner) => miner.agent.startsWith("LLM"))!;
      const llmRows = scored.items.flatMap((item: { miners: { uid: number; llmCalls: number }[] }) =>
        item.miners.filter((row) => row.uid === llmMiner.uid)
      );
      assert.ok(
        llmRows.some((row: { llmCalls: number }) => row.llmCalls >= 1),
        "the LLM miner's calls are charged",
      );

      const detail = await (await fetch(`${base}/v1/events/${scored.items[0].eventId}`)).json();
      const forecasts = detail.history.consensus.filter((point: { forecast: unknown }) =>
        point.forecast !== null
      );
      assert.ok(forecasts.length > 0, `a consensus before resolution: ${JSON.stringify(detail.history)}`);

      const prediction = await fetch(`${base}/v1/predictions/${scored.items[0].eventId}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      assert.equal(prediction.status, 200);
      const body = await prediction.json();
      assert.equal(body.forecast.method, "score_weighted_mean_v1");
      assert.ok(body.forecast.contributors >= 2, JSON.stringify(body.forecast));

      child.kill("SIGINT");
      assert.equal((await child.status).code, 0, transcript.lines.join("\n"));
      await transcript.done;
      await assert.rejects(Deno.stat(folder!), Deno.errors.NotFound, `${folder} is removed`);
    } finally {
      try {
        child.kill("SIGINT");
      } catch {
        // It has ended.
      }
      await child.status;
      await transcript.done;
    }
  },
});

/** The two best demo miners' scores once two of them are above 0 and differ. */
async function twoDifferentScores(base: string, deadline: number): Promise<number[]> {
  while (Date.now() < deadline) {
    const scores = scoredAboveZero(await fetchBoard(base), DEMO_MINERS).map(({ row }) => row.scoring.score);
    if (new Set(scores).size >= 2) return scores;
    await delay(500);
  }
  throw new Error("The board never showed two miners with different scores above 0");
}

/** The board's consensus baseline once it has a valid prediction (a resolved market's consensus). */
async function consensusBaseline(base: string, deadline: number): Promise<Board["baselines"][number]> {
  while (Date.now() < deadline) {
    const baseline = (await fetchBoard(base)).baselines.find((row) => row.name === "consensus");
    if (baseline !== undefined && baseline.validPreds > 0) return baseline;
    await delay(500);
  }
  throw new Error("The board's consensus baseline never had a valid prediction");
}
