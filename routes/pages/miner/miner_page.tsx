import type { Context } from "hono";
import type { MinerReport, MinerView, WeeklyBrier } from "../../../actors/scoring/mod.ts";
import { knownMiner } from "../../scoring/miner.ts";
import { minerHotkeyOf } from "../../scoring/miner_api.ts";
import { LineChart } from "../charts/line_chart.tsx";
import { ReliabilityChart } from "../charts/reliability_chart.tsx";
import { DEMO_HINT, EmptyState, Provenance } from "../kit/blocks.tsx";
import { day, fixed, shortKey, utc } from "../kit/format.ts";
import { Layout } from "../kit/layout.tsx";
import { sendPage } from "../kit/page_answer.ts";
import { htmlOf } from "../kit/render.ts";
import { Standing } from "./miner_standing.tsx";
import { AgentVersions, ScoredEvents } from "./miner_tables.tsx";

/**
 * `GET /miners/{hotkey}`: the miner's report from the same view as `GET /v1/miners/{hotkey}`,
 * the path validated by the same schema; each report's HTML is rendered once.
 */
export function minerPage(view: MinerView): (c: Context) => Promise<Response> {
  const pages = new WeakMap<MinerReport, string>();
  return async (c) => {
    const report = await knownMiner(view, minerHotkeyOf(c));
    let html = pages.get(report);
    if (html === undefined) pages.set(report, html = await htmlOf(<MinerDocument report={report} />));
    return sendPage(c, html);
  };
}

function MinerDocument(props: { report: MinerReport }) {
  const { report } = props;
  const { window } = report;
  return (
    <Layout title={`Miner ${shortKey(report.hotkey)}`} path={`/miners/${report.hotkey}`}>
      <h1>
        Miner <code class="hotkey">{report.hotkey}</code>
      </h1>
      <Provenance
        computedAt={window.computedAtMs}
        window={`the ${window.windowDays} days to ${
          utc(window.resolvedUntilMs)
        } (events resolved in that time)`}
        note={
          <>
            This page was built at {utc(report.builtAtMs)} and is rebuilt at most once a minute; its data:
            {" "}
            <a href={`/v1/miners/${report.hotkey}`}>JSON</a>.
          </>
        }
      />
      <h2>Standing</h2>
      <Standing report={report} />
      <h2>Brier over time</h2>
      {report.brierOverTime.length === 0
        ? <NoScoredEvents report={report} />
        : <BrierOverTime report={report} />}
      <h2>Reliability</h2>
      {report.intervals.validRows === 0 ? <NoScoredEvents report={report} /> : (
        <ReliabilityChart
          id="reliability"
          title="Reliability diagram"
          description={"How often its predicted outcome won (observed frequency) against the probability it " +
            "gave it (mean forecast), per tenth of forecast probability; the dashed diagonal is perfect " +
            "calibration, the bars count the forecasts in each tenth."}
          series="This miner"
          bins={report.reliability}
        />
      )}
      <h2>Scored events</h2>
      {report.scoredEvents === 0 ? <NoScoredEvents report={report} /> : <ScoredEvents report={report} />}
      <h2>Agent versions</h2>
      <AgentVersions report={report} />
    </Layout>
  );
}

function BrierOverTime(props: { report: MinerReport }) {
  const weeks = props.report.brierOverTime;
  const series = (name: string, y: (week: WeeklyBrier) => number) => ({
    name,
    points: weeks.map((week) => ({ x: week.weekStartMs, y: y(week) })),
  });
  const highest = Math.max(...weeks.flatMap((week) => [week.meanBrier, week.marketMeanBrier]));
  return (
    <LineChart
      id="brier-over-time"
      title="Brier over time"
      description={"Its mean Brier per week (by resolution time) beside the market's on the same events; " +
        "lower is better."}
      series={[
        series("This miner", (week) => week.meanBrier),
        series("Market", (week) => week.marketMeanBrier),
      ]}
      xLabel="Week starting (Monday, UTC)"
      yLabel="Mean Brier"
      formatX={day}
      formatY={(y) => fixed(y)}
      yDomain={[0, Math.max(0.25, Math.ceil(highest * 20) / 20)]}
    />
  );
}

/** Why a section is empty: nothing of this miner's resolved in the window yet, or nothing valid. */
function NoScoredEvents(props: { report: MinerReport }) {
  const { scoredEvents, window } = props.report;
  const why = scoredEvents === 0
    ? `No scored events in the window yet: a forecast is scored once its event resolves, and the window ` +
      `holds the events resolved in the last ${window.windowDays} days.`
    : `None of its ${scoredEvents} scored events in the window is valid: an invalid prediction has no Brier.`;
  return <EmptyState why={why} next={DEMO_HINT} />;
}
