/** The marker shapes of the series, in order: a series is told apart by shape and dash, not only colour. */
export const MARKERS = ["circle", "square", "triangle", "diamond"] as const;
export type Marker = (typeof MARKERS)[number];

/** The dash pattern of each series, in order (solid first). */
export const DASHES = [undefined, "6 4", "2 3", "10 3 2 3"] as const;

/** What a data point's marker carries, as written in the chart's table. */
export interface MarkerData {
  series: string;
  x: string;
  y: string;
}

/**
 * One marker of `shape`, centred on (x, y): a data point (class `point`, its data in `data-*`
 * attributes, so a test reads a chart's points) or, without `data`, a legend's sample.
 */
export function MarkerShape(props: { shape: Marker; x: number; y: number; data?: MarkerData }) {
  const { shape, x, y, data } = props;
  const attributes = data
    ? { class: "point", "data-series": data.series, "data-x": data.x, "data-y": data.y }
    : { class: "legend-mark" };
  if (shape === "circle") return <circle cx={x} cy={y} r={3.5} {...attributes} />;
  if (shape === "square") return <rect x={x - 3.5} y={y - 3.5} width={7} height={7} {...attributes} />;
  if (shape === "triangle") {
    return <path d={`M${x} ${y - 4.5}L${x + 4.5} ${y + 3.5}L${x - 4.5} ${y + 3.5}Z`} {...attributes} />;
  }
  return <path d={`M${x} ${y - 5}L${x + 5} ${y}L${x} ${y + 5}L${x - 5} ${y}Z`} {...attributes} />;
}
