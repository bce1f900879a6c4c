import {
  CALIBRATION_BINS,
  HALF_LIFE_DAYS,
  MAX_INVALID_RATE,
  MIN_VALID_PREDICTIONS,
  RHO_PRIOR,
  type ScoringSettings,
  STAKE_GAP,
  SUM_TOLERANCE,
  U16_MAX,
  VALIDITY_REASONS,
  type ValidityReason,
  WINDOW_DAYS,
} from "../../../actors/scoring/mod.ts";
import { TableScroll } from "../kit/blocks.tsx";

/** What each validity rule refuses (every rule has one: the record is typed by the rules). */
const RULES: Record<ValidityReason, string> = {
  agent_reported_invalid: "the agent flagged its own prediction as invalid",
  outcome_mismatch: "the probabilities' keys are not exactly the event's outcome ids",
  probability_out_of_range: "a probability is not a finite number in [0, 1]",
  probabilities_do_not_sum_to_one:
    `|Σp − 1| > ${SUM_TOLERANCE} (checked only when every probability is in range)`,
  unknown_predicted_outcome: "the predicted outcome is not one of the event's outcomes",
  confidence_out_of_range: "the confidence is not a finite number in [0, 1]",
  late_prediction:
    "received (server time) after the event's end date, or after its resolution when it resolved earlier",
};

/** "Per prediction": validity, the scored values and the latest rule. */
export function PerPrediction() {
  return (
    <section aria-labelledby="per-prediction">
      <h2 id="per-prediction">Per prediction</h2>
      <p>
        Every published number is rounded to six decimals at the end of its own formula:{" "}
        <code>r6(x) = round(x × 10⁶) / 10⁶</code>. Intermediate values are not rounded unless a formula says
        so.
      </p>
      <h3>Validity</h3>
      <p>Decided when the prediction is received; a prediction lists every rule it fails, in this order:</p>
      <ol>
        {VALIDITY_REASONS.map((reason) => (
          <li>
            <code>{reason}</code>: {RULES[reason]}
          </li>
        ))}
      </ol>
      <p>Invalid predictions are kept and counted against their miner; their scored values are empty.</p>
      <h3>Scored values</h3>
      <p>
        For a valid prediction on an event resolved with winning outcome <code>w</code>:
      </p>
      <dl class="defs">
        <dt>
          <code>p′</code>
        </dt>
        <dd>the forecast probabilities divided by their sum</dd>
        <dt>
          <code>pWin = r6(p′[w])</code>, <code>brier = r6((1 − pWin)²)</code>
        </dt>
        <dd>the Brier score: 0 is a certain, right forecast; lower is better</dd>
        <dt>
          <code>called</code>
        </dt>
        <dd>the predicted outcome is the winner</dd>
        <dt>
          <code>m′</code>, <code>marketBrier = r6((1 − r6(m′[w]))²)</code>
        </dt>
        <dd>
          the market's prices handed out with the prediction's lease, divided by their sum (the prices at the
          event's admission when those are missing), and the market's own Brier score on the same event
        </dd>
      </dl>
      <p>
        <strong>Latest rule.</strong>{" "}
        Of a miner's predictions on an event only the latest counts (greatest receipt time, then greatest
        prediction id), even when it is invalid. A miner is a (hotkey, uid) registration. Voided and
        unresolved events are not scored.
      </p>
    </section>
  );
}

/** "Per event": the statistics of a resolved event over its counted rows. */
export function PerEvent() {
  return (
    <section aria-labelledby="per-event">
      <h2 id="per-event">Per event</h2>
      <p>
        Over the counted rows of miners with a uid: <code>scored</code> rows, <code>valid</code> rows,{" "}
        <code>meanBrier</code> (the exact mean of their Brier scores),{" "}
        <code>calledRate = r6(called / valid)</code>, <code>bestUid</code>{" "}
        (lowest Brier; ties: earliest prediction, then lowest uid), and <code>marketPWinAtAdmission</code>
        {" "}
        (the winner's admission price ÷ the sum of the admission prices).
      </p>
    </section>
  );
}

/** Each score-table value: its formula (none for a plain count or mean) and a note in words. */
const MINER_FORMULAS: ReadonlyArray<{ value: string; formula?: string; note: string }> = [
  {
    value: "preds, validPreds, invalidPreds",
    note: "counted rows in the window; the valid ones; the difference",
  },
  { value: "brier", note: "the exact mean of the valid rows' Brier scores" },
  { value: "weightedBrier", formula: "r6(Σw·brier / Σw)", note: "the mean Brier, recent rows weighing more" },
  {
    value: "edge (= raw)",
    formula: "r6(Σw·(marketBrier − brier) / Σw)",
    note: "positive: better than the market",
  },
  { value: "accuracy", formula: "r6(called / validPreds)", note: "the share of rows that named the winner" },
  {
    value: "calibration",
    formula: "r6(1 − ECE), ECE = Σ (n_b / N)·|mean q_b − mean y_b|",
    note:
      `q = p′ of the predicted outcome, y = 1 if it won, in ${CALIBRATION_BINS} bins min(⌊${CALIBRATION_BINS}·q⌋, ${
        CALIBRATION_BINS - 1
      })`,
  },
  {
    value: "roi",
    formula: "r6((Σpaid − Σstaked) / Σstaked)",
    note:
      `per row a stake of 1 on the outcome k with the largest p′[k] − m′[k], when that gap > ${STAKE_GAP} ` +
      "and 0 < m′[k] < 1, paid 1/m′[k] if k won; 0 without a stake",
  },
  { value: "effN", formula: "r6((Σw)² / Σw²)", note: "the effective number of rows" },
  {
    value: "rho",
    formula: `r6(effN / (effN + ${RHO_PRIOR}))`,
    note: "the confidence in the edge, from 0 towards 1",
  },
  {
    value: "score",
    formula: "r6(rho · max(edge, 0))",
    note: "from the unrounded values when the gate is pass, else 0",
  },
  {
    value: "ageHours",
    formula: "r6(max(computedAt − firstSeenAt, 0) / 1 hour)",
    note: "how long it is registered",
  },
];

/** "Per miner": the window, the weights, the formulas and the gates. */
export function PerMiner(props: { settings: ScoringSettings }) {
  return (
    <section aria-labelledby="per-miner">
      <h2 id="per-miner">Per miner</h2>
      <p>
        A miner's rows are its counted rows on events resolved in{" "}
        <code>(computedAt − windowDays, computedAt]</code>: scorer v1's window is {WINDOW_DAYS}{" "}
        days; this deployment's is {props.settings.windowDays}. A valid row weighs{" "}
        <code>w = 0.5^(ageDays / {HALF_LIFE_DAYS})</code>,{" "}
        <code>ageDays = (computedAt − resolvedAt) / 1 day</code>: its weight halves every {HALF_LIFE_DAYS}
        {" "}
        days.
      </p>
      <TableScroll label="Per-miner formulas">
        <table>
          <caption>The score table's values (valid rows unless said); with no valid row they are 0</caption>
          <thead>
            <tr>
              <th scope="col">Value</th>
              <th scope="col">Formula</th>
              <th scope="col" class="wrap">In words</th>
            </tr>
          </thead>
          <tbody>
            {MINER_FORMULAS.map(({ value, formula, note }) => (
              <tr>
                <th scope="row">
                  <code>{value}</code>
                </th>
                <td>{formula ? <code>{formula}</code> : "—"}</td>
                <td class="wrap">{note}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <h3>Gates</h3>
      <p>
        The first that applies; a miner scores only when its gate is <code>pass</code>:
      </p>
      <ol>
        <li>
          <code>no_predictions</code>: no rows
        </li>
        <li>
          <code>invalid_rate</code>: invalidPreds / preds &gt; {MAX_INVALID_RATE}
        </li>
        <li>
          <code>min_predictions</code>: validPreds &lt; {MIN_VALID_PREDICTIONS}
        </li>
        <li>
          <code>pass</code>
        </li>
      </ol>
    </section>
  );
}

/** "Payouts": the budget, each miner's share, and the on-chain weights. */
export function Payouts(props: { settings: ScoringSettings }) {
  return (
    <section aria-labelledby="payouts">
      <h2 id="payouts">Payouts</h2>
      <dl class="defs">
        <dt>
          <code>forecastingBudgetAlphaPerDay = r6(minerAlphaPerDay × forecastingWeightShare)</code>
        </dt>
        <dd>
          the forecasting part of the miners' daily alpha; this deployment's{" "}
          <code>forecastingWeightShare</code> is {props.settings.forecastingWeightShare}
        </dd>
        <dt>
          <code>forecastingIncentive = r6(score / Σscore)</code>
        </dt>
        <dd>over every forecasting miner, from the unrounded scores (0 when Σscore = 0)</dd>
        <dt>
          <code>forecastingAlphaPerDay = r6(incentive × budget)</code>,{" "}
          <code>forecastingUsdPerDay = r6(alphaPerDay × alphaUsd)</code>
        </dt>
        <dd>each from the unrounded value before it</dd>
        <dt>On-chain weights</dt>
        <dd>
          the scores scaled so that the largest is {U16_MAX}, rounded half to even; zero weights are left out
        </dd>
      </dl>
    </section>
  );
}

/** "When scoring runs": the interval and what makes a run reproducible. */
export function Runs(props: { settings: ScoringSettings }) {
  return (
    <section aria-labelledby="runs">
      <h2 id="runs">When scoring runs</h2>
      <p>
        A run's <code>computedAt</code> is the start of its interval,{" "}
        <code>floor(now / interval) × interval</code>; this deployment's interval is {duration(
          props.settings.scoringIntervalMs,
        )}. Two instances, a re-run or anyone recomputing from the scored-predictions feed get the same
        numbers for the same interval: means of rounded values are summed in micro-units and rounded once, and
        every other sum runs in a fixed order (an event's rows by uid; a miner's by resolution time, then
        event id).
      </p>
    </section>
  );
}

/** `300000 ms (5 minutes)`. */
export function duration(ms: number): string {
  const minutes = ms / 60_000;
  if (Number.isInteger(minutes) && minutes > 0) {
    return `${ms} ms (${minutes} minute${minutes === 1 ? "" : "s"})`;
  }
  return `${ms} ms (${(ms / 1000).toFixed(1)} s)`;
}
