import { TableScroll } from "../kit/blocks.tsx";
import { CHART_WIDTH } from "./chart_text.ts";
import { linearScale, niceTicks, round } from "./scale.ts";

/** One bin of a reliability diagram: forecasts in [bin/10, (bin+1)/10), the last including 1. */
export interface ReliabilityPoint {
  bin: number;
  count: number;
  /** Null for an empty bin (it draws no point). */
  meanForecast: number | null;
  observedFrequency: number | null;
}

export interface ReliabilityChartProps {
  /** Unique on the page: the ids of the chart's title and description derive from it. */
  id: string;
  title: string;
  /** What the chart shows, in a sentence (the SVG's `<desc>` and the figure's caption). */
  description: string;
  /** The name of the forecaster's points (legend and `data-series`). */
  series: string;
  bins: readonly ReliabilityPoint[];
}

const WIDTH = CHART_WIDTH;
const PLOT = { left: 64, right: 20, top: 12, bottom: 232 };
/** The strip under the plot where each bin's count is a bar. */
const BARS = { top: 254, bottom: 296 };
/** Where the x axis' tick labels, its title and the legend's rows sit (their baselines). */
const BELOW = { ticks: BARS.bottom + 20, title: BARS.bottom + 44, legend: BARS.bottom + 70, row: 24 };
const HEIGHT = BELOW.legend + 2 * BELOW.row + 12;
const TICKS = niceTicks([0, 1]);

const x = linearScale([0, 1], [PLOT.left, WIDTH - PLOT.right]);
const y = linearScale([0, 1], [PLOT.bottom, PLOT.top]);
const two = (value: number) => value.toFixed(2);
const three = (value: number) => value.toFixed(3);
const range = (bin: number) => `${(bin / 10).toFixed(1)}–${((bin + 1) / 10).toFixed(1)}`;

/**
 * A reliability diagram drawn on the server as SVG with presentation attributes only: observed
 * frequency against mean forecast per bin (a circle each, its data in `data-*`), the diagonal of
 * perfect calibration (dashed), the count of forecasts per bin as bars under the plot with the
 * count written over each, a legend, and the same data as a table.
 */
export function ReliabilityChart(props: ReliabilityChartProps) {
  const titleId = `${props.id}-title`, descId = `${props.id}-desc`;
  return (
    <figure class="chart" id={props.id}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${titleId} ${descId}`}>
        <title id={titleId}>{props.title}</title>
        <desc id={descId}>{props.description}</desc>
        <Axes />
        <line
          class="diagonal"
          x1={x(0)}
          y1={y(0)}
          x2={x(1)}
          y2={y(1)}
          stroke-width={1.5}
          stroke-dasharray="6 4"
        />
        <Bars bins={props.bins} />
        <Points series={props.series} bins={props.bins} />
        <Legend series={props.series} />
      </svg>
      <figcaption>{props.description}</figcaption>
      <details class="data">
        <summary>{props.title}: the data as a table</summary>
        <DataTable {...props} />
      </details>
    </figure>
  );
}

function Axes() {
  const middle = (PLOT.top + PLOT.bottom) / 2;
  return (
    <g>
      {TICKS.map((tick) => (
        <g>
          <line
            class="grid"
            x1={PLOT.left}
            x2={WIDTH - PLOT.right}
            y1={y(tick)}
            y2={y(tick)}
            stroke-width={1}
          />
          <text x={PLOT.left - 6} y={y(tick) + 5} text-anchor="end">{two(tick)}</text>
          <text x={x(tick)} y={BELOW.ticks} text-anchor="middle">{two(tick)}</text>
        </g>
      ))}
      <line
        class="axis"
        x1={PLOT.left}
        x2={WIDTH - PLOT.right}
        y1={PLOT.bottom}
        y2={PLOT.bottom}
        stroke-width={1}
      />
      <line class="axis" x1={PLOT.left} x2={PLOT.left} y1={PLOT.top} y2={PLOT.bottom} stroke-width={1} />
      <line
        class="axis"
        x1={PLOT.left}
        x2={WIDTH - PLOT.right}
        y1={BARS.bottom}
        y2={BARS.bottom}
        stroke-width={1}
      />
      <text x={(PLOT.left + WIDTH - PLOT.right) / 2} y={BELOW.title} text-anchor="middle">
        Forecast probability of the predicted outcome
      </text>
      <text x={16} y={middle} text-anchor="middle" transform={`rotate(-90 16 ${middle})`}>
        Observed frequency
      </text>
      <text x={PLOT.left - 6} y={(BARS.top + BARS.bottom) / 2 + 5} text-anchor="end">n</text>
    </g>
  );
}

/** Each bin's count as a bar under the plot, with the count written over it. */
function Bars(props: { bins: readonly ReliabilityPoint[] }) {
  const most = Math.max(1, ...props.bins.map((bin) => bin.count));
  return (
    <g>
      {props.bins.map((bin) => {
        const height = round(((BARS.bottom - BARS.top) * bin.count) / most);
        const left = x(bin.bin / 10) + 2, right = x((bin.bin + 1) / 10) - 2;
        return (
          <g>
            <rect
              class="bar"
              x={left}
              y={round(BARS.bottom - height)}
              width={round(right - left)}
              height={height}
              stroke-width={1}
              data-bin={range(bin.bin)}
              data-count={bin.count}
            />
            <text x={round((left + right) / 2)} y={round(BARS.bottom - height - 3)} text-anchor="middle">
              {bin.count}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/**
 * One circle per non-empty bin, at (mean forecast, observed frequency); its count is the bar under
 * it (labels beside the points would cover each other where bins are close).
 */
function Points(props: { series: string; bins: readonly ReliabilityPoint[] }) {
  const shown = props.bins.filter((bin) => bin.meanForecast !== null && bin.observedFrequency !== null);
  return (
    <g class="s1" data-series={props.series}>
      {shown.map((bin) => {
        const cx = x(bin.meanForecast!), cy = y(bin.observedFrequency!);
        return (
          <g>
            <circle
              cx={cx}
              cy={cy}
              r={4.5}
              class="point"
              data-series={props.series}
              data-x={three(bin.meanForecast!)}
              data-y={three(bin.observedFrequency!)}
              data-bin={range(bin.bin)}
              data-count={bin.count}
            />
          </g>
        );
      })}
    </g>
  );
}

/** One row per mark under the axis title: the forecaster's points, the diagonal, the bars. */
function Legend(props: { series: string }) {
  const left = PLOT.left;
  const row = (index: number) => BELOW.legend + index * BELOW.row;
  return (
    <g>
      <g class="s1">
        <circle cx={left + 14} cy={row(0)} r={4.5} class="legend-mark" />
        <text x={left + 36} y={row(0) + 5}>{props.series}</text>
      </g>
      <line
        class="diagonal"
        x1={left}
        x2={left + 28}
        y1={row(1)}
        y2={row(1)}
        stroke-width={1.5}
        stroke-dasharray="6 4"
      />
      <text x={left + 36} y={row(1) + 5}>Perfect calibration</text>
      <rect class="bar" x={left + 8} y={row(2) - 6} width={12} height={12} stroke-width={1} />
      <text x={left + 36} y={row(2) + 5}>Forecasts per bin</text>
    </g>
  );
}

function DataTable(props: ReliabilityChartProps) {
  return (
    <TableScroll label={`${props.title}: data`}>
      <table>
        <thead>
          <tr>
            <th scope="col">Forecast bin</th>
            <th scope="col" class="num">Forecasts</th>
            <th scope="col" class="num">Mean forecast</th>
            <th scope="col" class="num">Observed frequency</th>
          </tr>
        </thead>
        <tbody>
          {props.bins.map((bin) => (
            <tr>
              <th scope="row">{range(bin.bin)}</th>
              <td class="num">{bin.count}</td>
              <td class="num">{bin.meanForecast === null ? "—" : three(bin.meanForecast)}</td>
              <td class="num">{bin.observedFrequency === null ? "—" : three(bin.observedFrequency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
