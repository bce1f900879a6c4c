import { TableScroll } from "../kit/blocks.tsx";
import { DASHES, MARKERS, MarkerShape } from "./markers.tsx";
import { extent, linearScale, type Scale } from "./scale.ts";

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

const WIDTH = 640, HEIGHT = 300;
const PLOT = { left: 64, right: 16, top: 14, bottom: 62 };

/**
 * A line chart drawn on the server as SVG with presentation attributes only (no `style=`): a
 * title and description for screen readers, axes with ticks, each series a line with its own
 * colour class, dash and marker (each marker carries its data in `data-*`), a legend, and the same
 * data as a table under it.
 */
export function LineChart(props: LineChartProps) {
  const xs = props.series.flatMap((s) => s.points.map((p) => p.x));
  const ys = props.series.flatMap((s) => s.points.map((p) => p.y));
  const x = linearScale(extent(xs), [PLOT.left, WIDTH - PLOT.right], 4);
  const y = linearScale(props.yDomain ?? extent(ys), [HEIGHT - PLOT.bottom, PLOT.top], 4);
  const titleId = `${props.id}-title`, descId = `${props.id}-desc`;
  return (
    <figure class="chart" id={props.id}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${titleId} ${descId}`}>
        <title id={titleId}>{props.title}</title>
        <desc id={descId}>{props.description}</desc>
        <Axes x={x} y={y} {...props} />
        {props.series.map((line, index) => (
          <Line line={line} index={index} x={x} y={y} formatX={props.formatX} formatY={props.formatY} />
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

function Axes(props: LineChartProps & { x: Scale; y: Scale }) {
  const { x, y } = props;
  const bottom = HEIGHT - PLOT.bottom;
  return (
    <g>
      {y.ticks.map((tick) => (
        <g>
          <line
            class="grid"
            x1={PLOT.left}
            x2={WIDTH - PLOT.right}
            y1={y(tick)}
            y2={y(tick)}
            stroke-width={1}
          />
          <text x={PLOT.left - 6} y={y(tick) + 4} text-anchor="end">{props.formatY(tick)}</text>
        </g>
      ))}
      {x.ticks.map((tick, i) => (
        <text x={x(tick)} y={bottom + 18} text-anchor={tickAnchor(i, x.ticks.length)}>
          {props.formatX(tick)}
        </text>
      ))}
      <line class="axis" x1={PLOT.left} x2={WIDTH - PLOT.right} y1={bottom} y2={bottom} stroke-width={1} />
      <line class="axis" x1={PLOT.left} x2={PLOT.left} y1={PLOT.top} y2={bottom} stroke-width={1} />
      <text x={(PLOT.left + WIDTH - PLOT.right) / 2} y={bottom + 36} text-anchor="middle">
        {props.xLabel}
      </text>
      <text
        x={14}
        y={(PLOT.top + bottom) / 2}
        text-anchor="middle"
        transform={`rotate(-90 14 ${(PLOT.top + bottom) / 2})`}
      >
        {props.yLabel}
      </text>
    </g>
  );
}

/** The first x tick's label starts at its tick and the last ends at it, so neither leaves the chart. */
function tickAnchor(index: number, count: number): "start" | "middle" | "end" {
  return index === 0 ? "start" : index === count - 1 ? "end" : "middle";
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

function Legend(props: { series: readonly ChartSeries[] }) {
  const top = HEIGHT - 16;
  return (
    <g>
      {props.series.map((series, index) => {
        const left = PLOT.left + index * 150;
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
            <text x={left + 34} y={top + 4}>{series.name}</text>
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
