import type { ScoredEventItem } from "../../../actors/scoring/mod.ts";
import type { EventRecord } from "../../../storage/event_record.ts";
import type { EventDetail } from "../../catalog/event_detail.ts";
import { type ChartSeries, LineChart } from "../charts/line_chart.tsx";
import { DEMO_HINT, EmptyState, TableScroll } from "../kit/blocks.tsx";
import { count, fixed, percent, shortKey, utc } from "../kit/format.ts";

/** Each outcome with its current price, its price at admission and, once settled, its final price. */
export function OutcomesTable(props: { event: EventRecord }) {
  const { event } = props;
  const final = event.resolution.finalOutcomePrices;
  return (
    <TableScroll label="Outcomes">
      <table>
        <thead>
          <tr>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">Current price</th>
            <th scope="col" class="num">Price at admission</th>
            {final ? <th scope="col" class="num">Final price</th> : ""}
          </tr>
        </thead>
        <tbody>
          {event.outcomes.map((outcome) => (
            <tr>
              <th scope="row">
                {outcome.name}
                {outcome.outcomeId === event.resolution.winningOutcomeId ? " (winner)" : ""}
              </th>
              <td class="num">{fixed(event.currentOutcomePrices[outcome.outcomeId])}</td>
              <td class="num">{fixed(event.outcomePricesAtAdmission[outcome.outcomeId])}</td>
              {final ? <td class="num">{fixed(final[outcome.outcomeId])}</td> : ""}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/**
 * The outcome the price chart follows: once settled the winner (the outcome the miners' forecasts
 * table names), before that (or when voided) the first outcome.
 */
function chartedOutcome(detail: EventDetail): EventRecord["outcomes"][number] | undefined {
  const { event } = detail.event;
  const winnerId = detail.scored?.winningOutcome.outcomeId ?? event.resolution.winningOutcomeId;
  return event.outcomes.find((outcome) => outcome.outcomeId === winnerId) ?? event.outcomes[0];
}

/**
 * The chart of one outcome's probability (`chartedOutcome`): the market's price and, once the
 * event is settled, the consensus (y 0..1, hourly).
 */
export function PriceChart(props: { detail: EventDetail }) {
  const { history } = props.detail;
  const charted = chartedOutcome(props.detail);
  if (!charted || history.market.length === 0) {
    return (
      <EmptyState
        why="No price history yet: the forecast-history job records the market's prices once an hour."
        next={DEMO_HINT}
      />
    );
  }
  const pick = (at: string, values: Record<string, number> | null) => {
    const y = values?.[charted.outcomeId];
    return y === undefined ? [] : [{ x: Date.parse(at), y }];
  };
  const series: ChartSeries[] = [
    { name: `Market: ${charted.name}`, points: history.market.flatMap((p) => pick(p.at, p.prices)) },
  ];
  if (history.consensus) {
    series.push({
      name: `Consensus: ${charted.name}`,
      points: history.consensus.flatMap((p) => pick(p.at, p.forecast)),
    });
  }
  return (
    <LineChart
      id="price-history"
      title={`Probability of “${charted.name}”`}
      description={history.consensus
        ? `The market's price of “${charted.name}” and the miners' consensus, hourly, over the 7 days before the resolution.`
        : `The market's price of “${charted.name}”, hourly, over the last 7 days.`}
      series={series}
      xLabel="Hour (UTC, month-day)"
      yLabel="Probability"
      formatX={hourOf}
      formatY={(y) => fixed(y)}
      yDomain={[0, 1]}
    />
  );
}

/** An hour as `12-02 14:00` (UTC): the chart's window is at most 7 days, its year is in the page's window. */
function hourOf(at: number): string {
  return new Date(at).toISOString().slice(5, 16).replace("T", " ");
}

/** What an open event's page says in place of the consensus and the miners' forecasts. */
export function PaidWhileOpen(props: { eventId: string }) {
  return (
    <p class="notice">
      The miners' consensus forecast and their individual forecasts are shown here once the event resolves.
      While it is open they are available to customers with an API key:{" "}
      <code>GET /v1/predictions/{props.eventId}</code> (scope{" "}
      <code>predictions:read</code>) and its history (scope <code>history:read</code>).
    </p>
  );
}

/** A settled event's resolution: when, and which outcome won (or that it was voided). */
export function Resolution(props: { event: EventRecord }) {
  const { resolution } = props.event;
  return (
    <dl class="defs">
      <dt>Resolved at</dt>
      <dd>{utc(resolution.resolvedAt)}</dd>
      <dt>Outcome</dt>
      <dd>
        {resolution.resolutionStatus === "voided"
          ? "Voided: no outcome won (settled 50/50); it is not scored."
          : `${resolution.winningOutcomeName ?? "?"} won.`}
      </dd>
    </dl>
  );
}

/** The miners' scored forecasts of a resolved event, best Brier first, with the event's statistics. */
export function MinersForecasts(props: { scored: ScoredEventItem | null }) {
  const { scored } = props;
  if (!scored) {
    return <EmptyState why="Not scored yet: the scoring job scores a resolved event at its next run." />;
  }
  const { stats } = scored;
  return (
    <>
      <p>
        {count(stats.scored)} miners scored, {count(stats.valid)} valid; mean Brier{" "}
        {fixed(stats.meanBrier)}; named the winner:{" "}
        {percent(stats.calledRate)}; the market's price of the winner at admission:{" "}
        {fixed(scored.marketPWinAtAdmission)}. Scored{" "}
        <time datetime={scored.scoredAt}>{utc(scored.scoredAt)}</time>.
      </p>
      <MinerRows scored={scored} />
    </>
  );
}

/** One row per miner of a scored event (also the rows of the `/scored` page). */
export function MinerRows(props: { scored: ScoredEventItem }) {
  const { scored } = props;
  if (scored.miners.length === 0) return <p class="muted">No miner row is shown for this event.</p>;
  return (
    <TableScroll label={`Miners' forecasts: ${scored.question}`}>
      <table>
        <thead>
          <tr>
            <th scope="col" class="num">UID</th>
            <th scope="col">Hotkey</th>
            <th scope="col" class="num">Forecast of “{scored.winningOutcome.name}”</th>
            <th scope="col" class="num">Brier</th>
            <th scope="col">Named the winner</th>
            <th scope="col">Predicted at</th>
            <th scope="col" class="num">LLM calls</th>
          </tr>
        </thead>
        <tbody>
          {scored.miners.map((miner) => (
            <tr>
              <td class="num">{miner.uid}</td>
              <td>
                <a href={`/miners/${miner.hotkey}`}>{shortKey(miner.hotkey)}</a>
              </td>
              <td class="num">{miner.invalid ? "invalid" : fixed(miner.pWin)}</td>
              <td class="num">{fixed(miner.brier)}</td>
              <td>{miner.called === null ? "—" : miner.called ? "yes" : "no"}</td>
              <td>
                <time datetime={miner.predictedAt}>{utc(miner.predictedAt)}</time>
              </td>
              <td class="num">{count(miner.llmCalls)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
