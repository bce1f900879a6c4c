import type { LeaderboardNeuron, MeanInterval, MinerReport } from "../../../actors/scoring/mod.ts";
import { TableScroll } from "../kit/blocks.tsx";
import { count, fixed, percent, signed, usd, utc } from "../kit/format.ts";

/** Rao per TAO: the stake is shown in TAO. */
const RAO_PER_TAO = 1e9;

/** "0.200 (95 % interval 0.039–0.362, 6 events)", or why there is no interval. */
function withInterval(value: string, interval: MeanInterval | null, format = fixed) {
  if (interval === null) {
    return (
      <>
        {value} <span class="muted">(interval from 5 valid events)</span>
      </>
    );
  }
  return (
    <>
      {value}{" "}
      <span class="muted">
        (95 % interval {format(interval.low)} to {format(interval.high)}, {interval.n} events)
      </span>
    </>
  );
}

/** The miner's place on the leaderboard and its score-table row, each figure explained. */
export function Standing(props: { report: MinerReport }) {
  const { standing, intervals } = props.report;
  if (standing === null) {
    return (
      <>
        <p>
          Not on the leaderboard now: the leaderboard lists forecasting miners, hotkeys registered to an
          organisation that hold a uid of the subnet. The figures below are over this hotkey's scored events
          under every uid it held.
        </p>
        <dl class="figures">
          <div>
            <dt>Mean Brier</dt>
            <dd>{fixed(intervals.meanBrier?.mean)}</dd>
          </div>
          <div>
            <dt>Mean edge over the market</dt>
            <dd>{signed(intervals.meanEdge?.mean)}</dd>
          </div>
        </dl>
      </>
    );
  }
  const { neuron } = standing;
  const s = neuron.scoring;
  return (
    <>
      <dl class="figures">
        <div>
          <dt>Rank</dt>
          <dd>{standing.rank} of {standing.count}</dd>
        </div>
        <div>
          <dt>UID</dt>
          <dd>{neuron.uid}</dd>
        </div>
        <div>
          <dt>Score</dt>
          <dd>{fixed(s.score, 4)}</dd>
        </div>
        <div>
          <dt>Mean Brier</dt>
          <dd>{fixed(s.brier)}</dd>
        </div>
        <div>
          <dt>Edge over the market</dt>
          <dd>{signed(s.edge)}</dd>
        </div>
        <div>
          <dt>Incentive</dt>
          <dd>{percent(neuron.forecastingIncentive)}</dd>
        </div>
      </dl>
      <h3>The score-table row, explained</h3>
      <dl class="defs">
        <dt>Score {fixed(s.score, 6)}</dt>
        <dd>
          <code>rho × max(edge, 0)</code> when the gate passes, else 0. Payouts are shares of it.
        </dd>
        <dt>Mean Brier {withInterval(fixed(s.brier, 6), intervals.meanBrier)}</dt>
        <dd>
          The mean of (1 − the probability it gave the outcome that happened)² over its valid scored events in
          the window: 0 is perfect, 0.25 is a coin flip on a yes/no question, lower is better. Weighted toward
          recent events (half-life 7 days): {fixed(s.weightedBrier, 6)}.
        </dd>
        <dt>Edge over the market {signed(s.edge, 6)}</dt>
        <dd>
          The market's Brier minus its own, weighted toward recent events: positive means its forecasts beat
          the market prices they were made at. Unweighted mean per event:{" "}
          {withInterval(signed(intervals.meanEdge?.mean ?? null, 6), intervals.meanEdge, signed)}.
        </dd>
        <dt>Calibration {fixed(s.calibration, 6)}</dt>
        <dd>
          1 − the expected calibration error over ten bins of its forecasts (the reliability diagram below): 1
          means its forecasts came true as often as they said.
        </dd>
        <dt>Accuracy {percent(s.accuracy)}</dt>
        <dd>The share of its valid predictions whose predicted outcome won.</dd>
        <dt>ROI {signed(s.roi, 4)}</dt>
        <dd>
          The return of a stake of 1 on each event where it disagreed with the market by more than 0.02, on
          the outcome it favoured most over the market.
        </dd>
        <dt>Predictions {count(s.preds)} ({count(s.validPreds)} valid, {count(s.invalidPreds)} invalid)</dt>
        <dd>Its latest prediction on each event resolved in the window.</dd>
        <dt>
          Gate <code>{s.gate}</code>
        </dt>
        <dd>
          <code>pass</code>{" "}
          needs at least 5 valid predictions and at most 25 % invalid ones; otherwise the score is 0.
        </dd>
        <dt>rho {fixed(s.rho, 6)} (effective events {fixed(s.effN, 2)})</dt>
        <dd>
          How much the edge is trusted: <code>effN / (effN + 10)</code>, from the recency weights.
        </dd>
        <dt>Incentive {percent(neuron.forecastingIncentive, 2)}</dt>
        <dd>
          Its share of the forecasting payout: its score over the sum of every forecasting miner's.{" "}
          {neuron.forecastingAlphaPerDay === null
            ? "Its payout per day is shown once the prices are known."
            : `Per day: ${fixed(neuron.forecastingAlphaPerDay, 3)} α (${usd(neuron.forecastingUsdPerDay)}).`}
        </dd>
      </dl>
      <h3>On chain</h3>
      <ChainFigures neuron={neuron} />
    </>
  );
}

/** The neuron's chain metrics, as the metagraph sync saw them. */
function ChainFigures(props: { neuron: LeaderboardNeuron }) {
  const n = props.neuron;
  const rows: [string, string][] = [
    ["Stake", `${fixed(Number(n.stake) / RAO_PER_TAO, 3)} τ`],
    ["Chain incentive", fixed(n.incentive, 6)],
    ["Emission per tempo", `${fixed(n.emission, 6)} α`],
    ["Trust", fixed(n.trust, 6)],
    ["Consensus", fixed(n.consensus, 6)],
    ["Dividends", fixed(n.dividends, 6)],
    ["Active", n.active ? "yes" : "no"],
    ["Validator permit", n.validatorPermit ? "yes" : "no"],
    ["Last update (block)", n.lastUpdate],
    ["First seen on this uid", utc(n.firstSeenAt)],
  ];
  return (
    <TableScroll label="Chain figures">
      <table class="pairs">
        <tbody>
          {rows.map(([name, value]) => (
            <tr>
              <th scope="row">{name}</th>
              <td class="num">{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
