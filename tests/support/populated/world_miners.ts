/**
 * The populated world's neurons and miners: a validator, seven forecasting miners that each follow
 * one habit (so the board has a clear order and every gate shows), one registered miner that never
 * predicted and one neuron that is not a forecasting miner. Their agents are the shipped example
 * agent, labelled per habit.
 */
import exampleAgent from "../../../docs/examples/agent_example.py" with { type: "text" };
import { DAY_MS, HOUR_MS } from "../../../actors/kernel/mod.ts";
import { minerHotkey } from "../assignments.ts";
import { WORLD_NOW_MS, WORLD_START_MS } from "./world_markets.ts";
import { normalised, pricesOf, type Random } from "./world_random.ts";

/** How a miner forecasts, from the market's prices `m` and the hidden truth `h` (outcome order). */
export type Habit =
  | "informed"
  | "shrinker"
  | "follower"
  | "noisy"
  | "overconfident"
  | "flaky"
  | "newcomer"
  | "idle";

export interface WorldMiner {
  uid: number;
  hotkey: string;
  habit: Habit;
  orgId: string;
  /** When its uid first appears in the metagraph (and it starts predicting). */
  joinedAtMs: number;
  /** Its agent versions, oldest first. */
  agents: { versionId: string; name: string; uploadedAtMs: number; code: string }[];
}

/** The validator that leases and submits every prediction (uid 0, with a permit). */
export const WORLD_VALIDATOR = { uid: 0, hotkey: minerHotkey(0) };
/** A neuron no organisation registered: on the metagraph, not on the board. */
export const OUTSIDER = { uid: 9, hotkey: minerHotkey(9) };

export const WORLD_ORGS = [
  { id: "org_northwind", name: "Northwind Forecasting" },
  { id: "org_delphi", name: "Delphi Labs" },
  { id: "org_solo", name: "Solo miner" },
] as const;

const HABITS: readonly { habit: Habit; orgId: string; versions: number }[] = [
  { habit: "informed", orgId: "org_northwind", versions: 2 },
  { habit: "shrinker", orgId: "org_northwind", versions: 1 },
  { habit: "follower", orgId: "org_northwind", versions: 1 },
  { habit: "noisy", orgId: "org_delphi", versions: 2 },
  { habit: "overconfident", orgId: "org_delphi", versions: 1 },
  { habit: "flaky", orgId: "org_delphi", versions: 1 },
  { habit: "newcomer", orgId: "org_solo", versions: 1 },
  { habit: "idle", orgId: "org_solo", versions: 1 },
];

/** When the newcomer's uid appears: late enough that it has fewer than five scored predictions. */
export const NEWCOMER_JOINS_MS = WORLD_NOW_MS - 7 * DAY_MS;

/** The forecasting miners, uids 1..8. */
export function worldMiners(): WorldMiner[] {
  return HABITS.map(({ habit, orgId, versions }, index) => {
    const uid = index + 1;
    const joinedAtMs = habit === "newcomer" ? NEWCOMER_JOINS_MS : WORLD_START_MS;
    const agents = Array.from({ length: versions }, (_, v) => ({
      versionId: `agv_world_${uid}_${v + 1}`,
      name: `${habit} v${v + 1}`,
      // A second version comes half way through the world's history.
      uploadedAtMs: v === 0 ? joinedAtMs - HOUR_MS : WORLD_START_MS + 14 * DAY_MS + uid * HOUR_MS,
      code: `# The ${habit} agent, version ${v + 1}.\n${exampleAgent}`,
    }));
    return { uid, hotkey: minerHotkey(uid), habit, orgId, joinedAtMs, agents };
  });
}

/** What a forecast is made from: the market's prices, the hidden odds, the winner once known. */
export interface ForecastInputs {
  market: readonly number[];
  hidden: readonly number[];
  /** The outcome that will win (index), for a market that resolves. */
  winner: number | null;
}

/** A probability vector from a habit (outcome order). */
export function forecastOf(habit: Habit, inputs: ForecastInputs, random: Random): number[] {
  const { market: m, hidden: h, winner } = inputs;
  const even = 1 / m.length;
  const toward = (shrink: number) => m.map((p) => even + shrink * (p - even));
  switch (habit) {
    case "informed": {
      // Better informed than the market: a third of the way from the price to what happens.
      const target = winner === null ? h : m.map((_, i) => (i === winner ? 1 : 0));
      return pricesOf(
        normalised(m.map((p, i) => Math.max(0.01, p + 0.3 * (target[i]! - p) + (random() - 0.5) * 0.06))),
      );
    }
    case "shrinker":
      return pricesOf(toward(0.6));
    case "newcomer":
      return pricesOf(toward(0.7));
    case "follower":
    case "flaky":
      return pricesOf(m);
    case "noisy":
      return pricesOf(normalised(m.map((p) => Math.max(0.01, p + (random() - 0.5) * 0.6))));
    case "overconfident":
      return pricesOf(normalised(m.map((p) => p ** 2.5)));
    case "idle":
      throw new RangeError("Cannot forecast: an idle miner never predicts");
  }
}
