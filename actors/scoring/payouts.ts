/**
 * Forecasting payouts (docs/scoring.md, "Payouts"): each miner's share of the summed scores, of the
 * forecasting part of the daily miner budget, in alpha and in USD.
 */
import type { ScorerPayout } from "./scorer_input.ts";
import { r6 } from "./scoring_math.ts";

export interface MinerPayout {
  forecastingIncentive: number;
  forecastingAlphaPerDay: number;
  forecastingUsdPerDay: number;
}

export interface Payouts {
  forecastingBudgetAlphaPerDay: number;
  /** By uid. */
  miners: Map<number, MinerPayout>;
}

/**
 * Payouts for every forecasting miner of the board (all of them, whatever page a reader asks
 * for), from each one's score before rounding (`MinerScore.unroundedScore`, as the golden file
 * has it); Σscore runs over ascending uid.
 */
export function forecastingPayouts(
  scores: readonly { uid: number; score: number }[],
  payout: ScorerPayout,
): Payouts {
  const byUid = [...scores].sort((a, b) => a.uid - b.uid);
  let total = 0;
  for (const { score } of byUid) total += score;
  const budget = payout.minerAlphaPerDay * payout.forecastingWeightShare;
  const miners = new Map<number, MinerPayout>();
  for (const { uid, score } of byUid) {
    const incentive = total === 0 ? 0 : score / total;
    const alpha = incentive * budget;
    miners.set(uid, {
      forecastingIncentive: r6(incentive),
      forecastingAlphaPerDay: r6(alpha),
      forecastingUsdPerDay: r6(alpha * payout.alphaUsd),
    });
  }
  return { forecastingBudgetAlphaPerDay: r6(budget), miners };
}
