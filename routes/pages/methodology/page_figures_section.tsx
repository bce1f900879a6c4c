import {
  MIN_INTERVAL_EVENTS,
  type NamedConstant,
  type WorkedExample,
  Z95,
} from "../../../actors/scoring/mod.ts";
import { TableScroll } from "../kit/blocks.tsx";
import { fixed, signed } from "../kit/format.ts";
import { ConstantsTable } from "./constants_table.tsx";

type Interval = WorkedExample["intervals"][string]["brier"];

function IntervalCells(props: { interval: Interval; figure: string; format: (x: number) => string }) {
  const { interval: i, format } = props;
  return (
    <td class="num" data-figure={props.figure}>
      {i === null
        ? `— (n < ${MIN_INTERVAL_EVENTS})`
        : `${format(i.mean)} [${format(i.low)}, ${format(i.high)}]`}
    </td>
  );
}

/**
 * "Figures the pages add": what the pages show beside scorer v1's numbers, defined here and not
 * part of scorer v1 (they change no score and no payout).
 */
export function PageFigures(props: { example: WorkedExample; constants: readonly NamedConstant[] }) {
  const { intervals } = props.example;
  return (
    <section aria-labelledby="page-figures">
      <h2 id="page-figures">Figures the pages add (not part of scorer v1)</h2>
      <p class="banner" role="note">
        These figures help a reader judge the scores. Scorer v1 does not produce them: they change no score,
        no gate and no payout.
      </p>
      <dl class="defs">
        <dt>95 % interval of a mean</dt>
        <dd>
          A miner's mean Brier and mean edge are shown with <code>mean ± {Z95}·sd/√n</code>{" "}
          over its per-event values in the window (<code>sd</code>: the sample standard deviation, n − 1),
          when <code>n ≥ {MIN_INTERVAL_EVENTS}</code>; below that no interval is shown.
        </dd>
        <dt>Reliability diagram</dt>
        <dd>
          The forecast probability of the predicted outcome binned into tenths (0–0.1, …, 0.9–1): per bin the
          number of forecasts, their mean and how often the predicted outcome won.
        </dd>
        <dt>Brier over time</dt>
        <dd>
          The weekly mean Brier by resolution time within the window, beside the market's mean Brier on the
          same events.
        </dd>
        <dt>Baselines</dt>
        <dd>
          Two rows pinned on the leaderboard (<code>baselines</code> in{" "}
          <code>GET /v1/leaderboard</code>): the market price at admission, and the consensus (its last
          history point before the resolution), each scored like a miner over every event scored in the
          window. They have no edge and no payout.
        </dd>
      </dl>
      <ConstantsTable caption="The pages' own constants" constants={props.constants} />
      <TableScroll label="Example intervals">
        <table>
          <caption>The example's 95 % intervals: mean [low, high] over the valid rows in the window</caption>
          <thead>
            <tr>
              <th scope="col">Miner</th>
              <th scope="col" class="num">Mean Brier</th>
              <th scope="col" class="num">Mean edge</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(intervals).map(([hotkey, interval]) => (
              <tr data-interval={hotkey}>
                <th scope="row">{hotkey}</th>
                <IntervalCells
                  interval={interval.brier}
                  figure="brier"
                  format={(x) => fixed(x, 4)}
                />
                <IntervalCells interval={interval.edge} figure="edge" format={(x) => signed(x, 4)} />
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
