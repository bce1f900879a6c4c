/**
 * The demo's miners: four neurons of the demo metagraph whose signing seeds are public
 * (docs/validators.md, "Demo file"), each with an agent of this repository.
 */
import { type Signer, signerFromSecretHex } from "../../actors/validators/mod.ts";

/** One demo miner and the agent it uploads. */
export interface DemoMiner {
  uid: number;
  /** What its agent does, as the demo prints it. */
  agent: string;
  /** The agent's file, from the repository's root. */
  file: string;
  signer: Signer;
}

const ROOT = new URL("../../", import.meta.url);

/** The agent validators run for each demo miner. */
export const DEMO_MINERS: readonly DemoMiner[] = [
  {
    uid: 4,
    agent: "market follower",
    file: "docs/examples/agent_example.py",
    signer: signerFromSecretHex("22".repeat(32)),
  },
  {
    uid: 5,
    agent: "shrink 0.6",
    file: "scripts/demo/agents/shrink_agent.py",
    // Alice's seed (docs/validators.md, "Demo file").
    signer: signerFromSecretHex("e5be9a5092b81bca64be81d212e7f2f9eba183bb7a90954f7b76361f6edb5c0a"),
  },
  {
    uid: 6,
    agent: "noisy",
    file: "scripts/demo/agents/noisy_agent.py",
    // Bob's seed.
    signer: signerFromSecretHex("398f0c28f98885e046333d4a41c19cee4c37368a9832c6502f6cfd182e2aef89"),
  },
  {
    uid: 7,
    agent: "LLM, shrink 0.8",
    file: "scripts/demo/agents/llm_shrink_agent.py",
    // Charlie's seed.
    signer: signerFromSecretHex("bc1ede780f784bb6991a585e4f6e61522c14e1cae6ad0895fb57b9a205a8f938"),
  },
];

/** The miner whose page the demo prints: the one expected to score best (shrink 0.6). */
export const SHOWN_MINER: DemoMiner = DEMO_MINERS[1]!;

/** The `SEED = …` line of an agent that draws from the demo's seed (the noisy agent). */
const SEED_LINE = /^SEED = \d+$/m;

/** The code `miner` uploads: its agent's file, with the demo's seed written into `SEED` when it has one. */
export async function agentCode(miner: DemoMiner, seed: number): Promise<string> {
  const code = await Deno.readTextFile(new URL(miner.file, ROOT));
  return code.replace(SEED_LINE, `SEED = ${seed}`);
}
