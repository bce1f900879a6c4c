import type { UsageReport, UsageRow } from "../../../actors/usage/mod.ts";
import { EmptyState, TableScroll } from "../../pages/kit/blocks.tsx";
import { Layout } from "../../pages/kit/layout.tsx";
import { type ChartSeries, LineChart } from "../../pages/charts/line_chart.tsx";
import { creditAmount } from "../pages/credit_amount.ts";
import type { FieldProblem } from "../pages/form_problems.tsx";
import { FieldError, FormProblems, problemOf } from "../pages/form_problems.tsx";
import { USAGE_BREAKDOWNS, type UsageFormValues } from "./usage_form.ts";
import { USAGE_SCRIPT_PATH } from "./usage_script.ts";

export interface UsagePageProps {
  orgName: string;
  form: UsageFormValues;
  /** True when the page was opened without a zone: the script fills in the browser's and asks again. */
  askBrowserZone: boolean;
  problems: FieldProblem[];
  /** The report of the form's query; null when the form was refused. */
  report: UsageReport | null;
  /** The organisation's key names by key id (a breakdown by key shows the name and the id). */
  keyNames: ReadonlyMap<string, string>;
  /** The CSV of exactly these rows: the same query. */
  csvHref: string;
}

/** Series the chart draws besides the total of the rest: the values with the most spend. */
const CHART_VALUES = 3;
const DAY_MS = 86_400_000;

/**
 * `GET /dashboard/usage`: the form (range, zone, breakdown), a chart of spend per day, the table
 * of the report's rows (day × value: spend, calls; totals), and the link to the same rows as CSV.
 */
export function UsagePage(props: UsagePageProps) {
  const { report } = props;
  return (
    <Layout title={`Usage · ${props.orgName}`} path="/dashboard/usage" wide>
      <script src={USAGE_SCRIPT_PATH} defer></script>
      <h1>Usage of {props.orgName}</h1>
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
      <p>
        Spend and calls per day. A call counts on the day it was settled (its ledger debit), in the time zone
        chosen.
      </p>
      <UsageForm {...props} />
      {report === null ? "" : <UsageFigures {...props} report={report} />}
    </Layout>
  );
}

function UsageForm(props: UsagePageProps) {
  const { form, problems } = props;
  const described = (name: string) => {
    const problem = problemOf(problems, name);
    return {
      "aria-invalid": problem ? "true" : undefined,
      "aria-describedby": problem ? `usage-${name}-error` : undefined,
    };
  };
  return (
    <section aria-labelledby="usage-query">
      <h2 id="usage-query">Days, time zone and breakdown</h2>
      <FormProblems problems={problems} what="The usage was not shown" />
      <form method="get" action="/dashboard/usage" class="usage-form">
        <p>
          <label for="usage-from">From (first day)</label>
          <input id="usage-from" name="from" type="date" value={form.from} {...described("from")} />
          <FieldError id="usage-from-error" problem={problemOf(problems, "from")} />
        </p>
        <p>
          <label for="usage-to">To (last day, at most 366 days in all)</label>
          <input id="usage-to" name="to" type="date" value={form.to} {...described("to")} />
          <FieldError id="usage-to-error" problem={problemOf(problems, "to")} />
        </p>
        <p>
          <label for="usage-tz">Time zone (IANA name, such as Asia/Kolkata; empty: UTC)</label>
          <input
            id="usage-tz"
            name="tz"
            type="text"
            value={form.tz}
            placeholder="UTC"
            autocomplete="off"
            spellcheck={false}
            data-browser-zone={props.askBrowserZone ? "submit" : "fill"}
            {...described("tz")}
          />
          <FieldError id="usage-tz-error" problem={problemOf(problems, "tz")} />
        </p>
        <p>
          <label for="usage-by">Break down by</label>
          <select id="usage-by" name="by" {...described("by")}>
            {USAGE_BREAKDOWNS.map(([value, label]) => (
              <option value={value} selected={(form.by || "key") === value}>{label}</option>
            ))}
          </select>
          <FieldError id="usage-by-error" problem={problemOf(problems, "by")} />
        </p>
        <p>
          <button type="submit">Show</button>
        </p>
      </form>
    </section>
  );
}

/** What a value is called on the page: a key by its name (with its id beside it in the table). */
function labelOf(props: UsagePageProps, report: UsageReport, value: string | null): string {
  if (value === null) return `no ${breakdownPhrase(report)}`;
  if (report.by === "key") return props.keyNames.get(value) ?? value;
  return value;
}

function breakdownLabel(report: UsageReport): string {
  return USAGE_BREAKDOWNS.find(([value]) => value === report.by)?.[1] ?? report.by;
}

/** The breakdown in a sentence: "API key", "model", "provider", "miner". */
function breakdownPhrase(report: UsageReport): string {
  return report.by === "key" ? "API key" : breakdownLabel(report).toLowerCase();
}

function UsageFigures(props: UsagePageProps & { report: UsageReport }) {
  const { report } = props;
  return (
    <section aria-labelledby="usage-figures">
      <h2 id="usage-figures">
        {report.from} to {report.to}, {report.timeZone}, by {breakdownPhrase(report)}
      </h2>
      <p>
        Total:{" "}
        <strong data-total-spend-micro={report.totals.spendMicro.toString()}>
          {creditAmount(report.totals.spendMicro)}
        </strong>{" "}
        credits over <strong data-total-calls={String(report.totals.calls)}>{report.totals.calls}</strong>
        {" "}
        calls. <a href={props.csvHref} download>Download CSV</a> (exactly the rows of the table below).
      </p>
      <SpendChart {...props} />
      {report.rows.length === 0
        ? <EmptyState why="No call was settled on these days." />
        : <UsageTable {...props} />}
    </section>
  );
}

/** Spend per day of the values with the most spend, and of the rest together; every day of the range. */
function SpendChart(props: UsagePageProps & { report: UsageReport }) {
  const { report } = props;
  const top = report.values.toSorted((
    a,
    b,
  ) => (a.spendMicro < b.spendMicro ? 1 : a.spendMicro > b.spendMicro ? -1 : 0))
    .slice(0, report.values.length > CHART_VALUES + 1 ? CHART_VALUES : CHART_VALUES + 1);
  const shown = new Set(top.map((value) => value.value));
  const first = Date.parse(`${report.from}T00:00:00Z`);
  const seriesOf = (name: string, keep: (row: UsageRow) => boolean): ChartSeries => {
    const perDay = new Map<string, bigint>();
    for (const row of report.rows) {
      if (keep(row)) perDay.set(row.day, (perDay.get(row.day) ?? 0n) + row.spendMicro);
    }
    return {
      name,
      points: report.days.map((day, i) => ({ x: first + i * DAY_MS, y: credits(perDay.get(day.day) ?? 0n) })),
    };
  };
  const series = top.map((value) =>
    seriesOf(labelOf(props, report, value.value), (row) => row.value === value.value)
  );
  if (report.values.length > top.length) {
    series.push(seriesOf("everything else", (row) => !shown.has(row.value)));
  }
  if (series.length === 0) series.push(seriesOf("spend", () => true));
  const most = Math.max(...series.flatMap((line) => line.points.map((point) => point.y)));
  return (
    <LineChart
      id="usage-chart"
      title="Spend per day"
      description={`Spend in credits on each day from ${report.from} to ${report.to} (${report.timeZone}), ` +
        `by ${breakdownPhrase(report)}.`}
      series={series}
      xLabel="Day"
      yLabel="Credits"
      formatX={(x) => new Date(x).toISOString().slice(0, 10)}
      formatY={(y) => y.toLocaleString("en-US", { maximumFractionDigits: 6 })}
      yDomain={[0, most > 0 ? most : 1]}
    />
  );
}

/** Micro-units as credits, for drawing (the table and the CSV keep them exact). */
function credits(micro: bigint): number {
  return Number(micro) / 1_000_000;
}

function UsageTable(props: UsagePageProps & { report: UsageReport }) {
  const { report } = props;
  const byKey = report.by === "key";
  return (
    <TableScroll label="Usage by day">
      <table id="usage-table">
        <caption>Spend and calls per day and {breakdownPhrase(report)}</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">{breakdownLabel(report)}</th>
            {byKey ? <th scope="col">Key id</th> : ""}
            <th scope="col" class="num">Spend (credits)</th>
            <th scope="col" class="num">Calls</th>
          </tr>
        </thead>
        <tbody>
          {report.rows.map((row) => (
            <tr
              data-day={row.day}
              data-value={row.value ?? ""}
              data-spend-micro={row.spendMicro.toString()}
              data-calls={String(row.calls)}
            >
              <th scope="row">{row.day}</th>
              <td>{labelOf(props, report, row.value)}</td>
              {byKey ? <td>{row.value === null ? "—" : <code>{row.value}</code>}</td> : ""}
              <td class="num">{creditAmount(row.spendMicro)}</td>
              <td class="num">{row.calls}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colspan={byKey ? 3 : 2}>Total</th>
            <td class="num">{creditAmount(report.totals.spendMicro)}</td>
            <td class="num">{report.totals.calls}</td>
          </tr>
        </tfoot>
      </table>
    </TableScroll>
  );
}
