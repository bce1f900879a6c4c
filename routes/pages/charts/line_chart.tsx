import { TableScroll } from "../kit/blocks.tsx";
import { DASHES, MARKERS, MarkerShape } from "./markers.tsx";
import { CHART_WIDTH, textWidth } from "./chart_text.ts";
import { type PlacedLabel, placeLabels } from "./tick_labels.ts";
import { distinctLabels, extent, instantTicks, linearScale, niceTicks, type Scale } from "./scale.ts";

/** A point of a series: `x` an instant (ms since the epoch), `y` its value. */
export interface ChartPoint {
  x: number;
  y: number;
}

/** One line of a chart; a chart draws at most four, told apart by colour, dash and marker. */
export interface ChartSeries {
  name: string;
  points: readonly ChartPoint[];
}

export interface LineChartProps {
  /** Unique on the page: the ids of the chart's title and description derive from it. */
  id: string;
  title: string;
  /** What the chart shows, in a sentence (the SVG's `<desc>` and the figure's caption). */
  description: string;
  series: readonly ChartSeries[];
  xLabel: string;
  yLabel: string;
  formatX: (x: number) => string;
  formatY: (y: number) => string;
  /** The y range; default the data's own. */
  yDomain?: [number, number];
}

const WIDTH = CHART_WIDTH;
const PLOT = { left: 78, right: 16, top: 12, bottom: 212 };
/** Where the x axis' tick labels, its title and the legend's rows sit (their baselines). */
const BELOW = { ticks: PLOT.bottom + 20, title: PLOT.bottom + 44, legend: PLOT.bottom + 70, row: 24 };
/** The least room between two x tick labels, in SVG units. */
const LABEL_GAP = 8;

/**
 * A line chart of values over time drawn on the server as SVG with presentation attributes only
 * (no `style=`): a title and description for screen readers, axes with ticks (y at nice values, x
 * at each point's instant while their labels have room, else at whole hours, days or weeks; each
 * label written once), each series a line with its own colour
 * class, dash and marker (each marker carries its data in `data-*`), a legend, and the same data as
 * a table under it. A chart of one instant draws it in the middle.
 */
export function LineChart(props: LineChartProps) {
  const xs = props.series.flatMap((s) => s.points.map((p) => p.x));
  const ys = props.series.flatMap((s) => s.points.map((p) => p.y));
  const xDomain = extent(xs), yDomain = props.yDomain ?? extent(ys);
  const x = linearScale(xDomain, [PLOT.left, WIDTH - PLOT.right]);
  const xTicks = distinctLabels(instantTicks(xs, minStepMs(xDomain, props.formatX)), props.formatX);
  const axes: AxesProps = {
    y: linearScale(yDomain, [PLOT.bottom, PLOT.top]),
    xLabels: placeLabels(xTicks, { position: x, format: props.formatX, width: WIDTH, gap: LABEL_GAP }),
    yTicks: distinctLabels(niceTicks(yDomain), props.formatY),
  };
  const height = BELOW.legend + (props.series.length - 1) * BELOW.row + 12;
  const titleId = `${props.id}-title`, descId = `${props.id}-desc`;
  return (
    <figure class="chart" id={props.id}>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={`${titleId} ${descId}`}>
        <title id={titleId}>{props.title}</title>
        <desc id={descId}>{props.description}</desc>
        <Axes {...axes} {...props} />
        {props.series.map((line, index) => (
          <Line
            line={line}
            index={index}
            x={x}
            y={axes.y}
            formatX={props.formatX}
            formatY={props.formatY}
          />
        ))}
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

/** The least time between x ticks for their labels (as wide as the first one's) not to touch. */
function minStepMs(domain: [number, number], format: (x: number) => string): number {
  const room = (textWidth(format(domain[0])) + LABEL_GAP) / (WIDTH - PLOT.left - PLOT.right);
  return (domain[1] - domain[0]) * room;
}

interface AxesProps {
  y: Scale;
  xLabels: readonly PlacedLabel[];
  yTicks: readonly number[];
}

function Axes(props: LineChartProps & AxesProps) {
  const { y } = props;
  const middle = (PLOT.top + PLOT.bottom) / 2;
  return (
    <g>
      {props.yTicks.map((tick) => (
        <g>
          <line
            class="grid"
            x1={PLOT.left}
            x2={WIDTH - PLOT.right}
            y1={y(tick)}
            y2={y(tick)}
            stroke-width={1}
          />
          <text class="y-tick" x={PLOT.left - 6} y={y(tick) + 5} text-anchor="end">
            {props.formatY(tick)}
          </text>
        </g>
      ))}
      {props.xLabels.map((label) => (
        <g>
          <line
            class="axis"
            x1={label.at}
            x2={label.at}
            y1={PLOT.bottom}
            y2={PLOT.bottom + 5}
            stroke-width={1}
          />
          <text class="x-tick" x={label.at} y={BELOW.ticks} text-anchor={label.anchor}>{label.text}</text>
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
      <text x={(PLOT.left + WIDTH - PLOT.right) / 2} y={BELOW.title} text-anchor="middle">
        {props.xLabel}
      </text>
      <text x={16} y={middle} text-anchor="middle" transform={`rotate(-90 16 ${middle})`}>
        {props.yLabel}
      </text>
    </g>
  );
}

interface LineProps extends Pick<LineChartProps, "formatX" | "formatY"> {
  line: ChartSeries;
  index: number;
  x: Scale;
  y: Scale;
}

function Line(props: LineProps) {
  const { line: series, index, x, y } = props;
  const path = series.points.map((p, i) => `${i === 0 ? "M" : "L"}${x(p.x)} ${y(p.y)}`).join("");
  return (
    <g class={`s${index + 1}`} data-series={series.name}>
      {series.points.length > 1
        ? <path class="line" d={path} stroke-width={2} stroke-dasharray={DASHES[index]} />
        : ""}
      {series.points.map((p) => (
        <MarkerShape
          shape={MARKERS[index]!}
          x={x(p.x)}
          y={y(p.y)}
          data={{ series: series.name, x: props.formatX(p.x), y: props.formatY(p.y) }}
        />
      ))}
    </g>
  );
}

/** One row per series under the axis title: its dash and marker, then its name. */
function Legend(props: { series: readonly ChartSeries[] }) {
  const left = PLOT.left;
  return (
    <g>
      {props.series.map((series, index) => {
        const top = BELOW.legend + index * BELOW.row;
        return (
          <g class={`s${index + 1}`}>
            <line
              x1={left}
              x2={left + 28}
              y1={top}
              y2={top}
              stroke-width={2}
              stroke-dasharray={DASHES[index]}
            />
            <MarkerShape shape={MARKERS[index]!} x={left + 14} y={top} />
            <text x={left + 36} y={top + 5}>{series.name}</text>
          </g>
        );
      })}
    </g>
  );
}

function DataTable(props: LineChartProps) {
  const xs = [...new Set(props.series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const byX = props.series.map((s) => new Map(s.points.map((p) => [p.x, p.y])));
  return (
    <TableScroll label={`${props.title}: data`}>
      <table>
        <thead>
          <tr>
            <th scope="col">{props.xLabel}</th>
            {props.series.map((s) => <th scope="col" class="num">{s.name}</th>)}
          </tr>
        </thead>
        <tbody>
          {xs.map((at) => (
            <tr>
              <th scope="row">{props.formatX(at)}</th>
              {byX.map((values) => {
                const value = values.get(at);
                return <td class="num">{value === undefined ? "—" : props.formatY(value)}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
