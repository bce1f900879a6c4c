import type { BaselineScoring, LeaderboardNeuron, MeanInterval } from "../../../actors/scoring/mod.ts";
import { fixed, percent, shortKey, signed, usd } from "../kit/format.ts";

/** How the page names each baseline. */
export const BASELINE_LABELS: Record<BaselineScoring["name"], string> = {
  market: "Market price at admission",
  consensus: "Consensus before resolution",
};

/** An interval as `[low, high]` after its mean; nothing when there is none (under 5 events). */
function Interval(props: { interval: MeanInterval | null; format: (value: number) => string }) {
  const { interval } = props;
  if (interval === null) return null;
  return (
    <>
      {" "}
      <span class="ci" title={`95 % interval over ${interval.n} events`}>
        [{props.format(interval.low)}, {props.format(interval.high)}]
      </span>
    </>
  );
}

const brier = (value: number) => fixed(value, 3);
const edge = (value: number) => signed(value, 3);

/** Alpha with two decimals and thousands separators. */
function alpha(value: number | null): string {
  return value === null
    ? "—"
    : value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** A miner's row: its figures in the columns' order (`BOARD_COLUMNS`). */
export function MinerRow(props: { row: LeaderboardNeuron }) {
  const { row } = props;
  const { scoring } = row;
  // The scorer gives 0 for the figures of a miner without a valid prediction: no figure.
  const scored = scoring.validPreds > 0;
  return (
    <tr data-uid={row.uid}>
      <td class="num">{row.rank}</td>
      <td class="num">{row.uid}</td>
      <th scope="row">
        <a href={`/miners/${encodeURIComponent(row.hotkey)}`} title={row.hotkey}>
          <code>{shortKey(row.hotkey)}</code>
        </a>
      </th>
      <td class="num">{fixed(scoring.score, 4)}</td>
      <td class="num">
        {scored ? brier(scoring.brier) : "—"}
        <Interval interval={row.brierInterval} format={brier} />
      </td>
      <td class="num">
        {scored ? edge(scoring.edge) : "—"}
        <Interval interval={row.edgeInterval} format={edge} />
      </td>
      <td class="num">{scored ? fixed(scoring.calibration, 3) : "—"}</td>
      <td class="num">{scoring.validPreds}</td>
      <td class="num">{scoring.invalidPreds}</td>
      <td>
        <code>{scoring.gate}</code>
      </td>
      <td class="num">{percent(row.forecastingIncentive, 2)}</td>
      <td class="num">{alpha(row.forecastingAlphaPerDay)}</td>
      <td class="num">{usd(row.forecastingUsdPerDay)}</td>
    </tr>
  );
}

/** A baseline's row: marked as a baseline, not ranked, no score, edge, gate or payout. */
export function BaselineRow(props: { baseline: BaselineScoring }) {
  const { baseline } = props;
  return (
    <tr class="baseline" data-baseline={baseline.name}>
      <td>
        <span class="tag">baseline</span>
      </td>
      <td class="num">—</td>
      <th scope="row">{BASELINE_LABELS[baseline.name]}</th>
      <td class="num">—</td>
      <td class="num">
        {fixed(baseline.brier, 3)}
        <Interval interval={baseline.brierInterval} format={brier} />
      </td>
      <td class="num">—</td>
      <td class="num">{fixed(baseline.calibration, 3)}</td>
      <td class="num">{baseline.validPreds}</td>
      <td class="num">{baseline.invalidPreds}</td>
      <td>—</td>
      <td class="num">—</td>
      <td class="num">—</td>
      <td class="num">—</td>
    </tr>
  );
}
