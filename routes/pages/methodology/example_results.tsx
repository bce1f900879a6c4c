import type { MinerScoring, WorkedExample } from "../../../actors/scoring/mod.ts";
import { TableScroll } from "../kit/blocks.tsx";
import { figure } from "./example_inputs.tsx";

/** Per-prediction scores as scorer v1 gives them, with whether the latest rule counts each. */
export function ExampleScores(props: { example: WorkedExample }) {
  const { input, output, counted } = props.example;
  const counts = new Set(counted);
  return (
    <TableScroll label="Example per-prediction scores">
      <table>
        <caption>Per-prediction scores (scorer v1's output)</caption>
        <thead>
          <tr>
            <th scope="col">Prediction</th>
            <th scope="col">Valid</th>
            <th scope="col">Reasons</th>
            <th scope="col">Counts (latest)</th>
            <th scope="col" class="num">pWin</th>
            <th scope="col" class="num">brier</th>
            <th scope="col" class="num">marketBrier</th>
            <th scope="col">called</th>
          </tr>
        </thead>
        <tbody>
          {input.predictions.map(({ agentPredictionId: id }) => {
            const result = output.predictions[id]!;
            return (
              <tr data-prediction={id}>
                <th scope="row">
                  <code>{id}</code>
                </th>
                <td data-figure="isValid">{figure(result.isValid)}</td>
                <td data-figure="reasons">{result.reasons.join(", ") || "—"}</td>
                <td data-figure="counted">{figure(counts.has(id))}</td>
                <td class="num" data-figure="pWin">{figure(result.pWin)}</td>
                <td class="num" data-figure="brier">{figure(result.brier)}</td>
                <td class="num" data-figure="marketBrier">{figure(result.marketBrier)}</td>
                <td data-figure="called">{figure(result.called)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

const STATS = ["scored", "valid", "meanBrier", "calledRate", "bestUid"] as const;

/** Per-event statistics of the example's resolved events. */
export function ExampleEventStats(props: { example: WorkedExample }) {
  const { output } = props.example;
  return (
    <TableScroll label="Example per-event statistics">
      <table>
        <caption>Per-event statistics (scorer v1's output)</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            {STATS.map((name) => <th scope="col" class="num">{name}</th>)}
            <th scope="col" class="num">marketPWinAtAdmission</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(output.events).map(([id, result]) => (
            <tr data-event-stats={id}>
              <th scope="row">
                <code>{id}</code>
              </th>
              {STATS.map((name) => <td class="num" data-figure={name}>{figure(result.stats[name])}</td>)}
              <td class="num" data-figure="marketPWinAtAdmission">{figure(result.marketPWinAtAdmission)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** The score-table values the example shows, in the order of the formulas above. */
const SCORING: readonly (keyof MinerScoring)[] = [
  "preds",
  "validPreds",
  "invalidPreds",
  "brier",
  "weightedBrier",
  "edge",
  "raw",
  "accuracy",
  "calibration",
  "roi",
  "effN",
  "rho",
  "ageHours",
  "gate",
  "score",
];

const PAYOUTS = ["forecastingIncentive", "forecastingAlphaPerDay", "forecastingUsdPerDay"] as const;

/** The example's miners, one column each: their score-table values, then their payouts. */
export function ExampleMiners(props: { example: WorkedExample }) {
  const { output, input } = props.example;
  const miners = Object.entries(output.miners);
  const cell = (value: string | number) => typeof value === "string" ? value : figure(value);
  return (
    <>
      <TableScroll label="Example miner figures and payouts">
        <table>
          <caption>Miner figures and payouts (scorer v1's output)</caption>
          <thead>
            <tr>
              <th scope="col">Value</th>
              {miners.map(([hotkey, miner]) => <th scope="col" class="num">{hotkey} (uid {miner.uid})</th>)}
            </tr>
          </thead>
          <tbody>
            {SCORING.map((name) => (
              <tr>
                <th scope="row">
                  <code>{name}</code>
                </th>
                {miners.map(([hotkey, miner]) => (
                  <td class="num" data-miner={hotkey} data-figure={name}>{cell(miner.scoring[name])}</td>
                ))}
              </tr>
            ))}
            {PAYOUTS.map((name) => (
              <tr>
                <th scope="row">
                  <code>{name}</code>
                </th>
                {miners.map(([hotkey, miner]) => (
                  <td class="num" data-miner={hotkey} data-figure={name}>{figure(miner[name])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p>
        Payouts with <code>minerAlphaPerDay</code> = {input.payout.minerAlphaPerDay},{" "}
        <code>forecastingWeightShare</code> = {input.payout.forecastingWeightShare} and <code>alphaUsd</code>
        {" "}
        = {input.payout.alphaUsd}: <code>forecastingBudgetAlphaPerDay</code> ={" "}
        <span data-figure="forecastingBudgetAlphaPerDay">{figure(output.forecastingBudgetAlphaPerDay)}</span>.
        Miner c passes no gate, so the budget is shared by a and b in proportion to their scores.
      </p>
    </>
  );
}
