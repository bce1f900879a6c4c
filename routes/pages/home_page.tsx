import type { Context } from "hono";
import type { Overview, OverviewSource } from "../overview/overview_source.ts";
import { Banner, DEMO_HINT, EmptyState, Provenance } from "./kit/blocks.tsx";
import { count, utc } from "./kit/format.ts";
import { Layout } from "./kit/layout.tsx";
import { htmlOf } from "./kit/render.ts";
import { sendPage } from "./kit/page_answer.ts";

/**
 * `GET /`: what the service is, its live figures (those of `GET /v1/overview`, from the same
 * source) and where to go. Rendered once per overview (it is served for a few seconds).
 */
export function homePage(overviews: OverviewSource) {
  const rendered = new WeakMap<Overview, string>();
  return async (c: Context): Promise<Response> => {
    const overview = await overviews.current();
    let html = rendered.get(overview);
    if (html === undefined) {
      html = await htmlOf(<Home overview={overview} />);
      rendered.set(overview, html);
    }
    return sendPage(c, html);
  };
}

function Home(props: { overview: Overview }) {
  const { overview } = props;
  return (
    <Layout title="Home" path="/">
      <h1>Forecasting Gateway</h1>
      <p class="lead">
        The service a Bittensor forecasting subnet runs on. It keeps a catalog of prediction-market events
        taken from Polymarket, hands miners' forecasting agents to validators and collects their predictions,
        scores the miners against the market on a public leaderboard once events resolve, and sells customers
        the miners' consensus forecasts.
      </p>
      <h2>Live figures</h2>
      <Provenance
        computedAt={overview.updatedAt}
        window={`a scoring window of ${overview.windowDays} days`}
        note={
          <>
            The same figures as JSON: <a href="/v1/overview">/v1/overview</a>.
          </>
        }
      />
      {overview.stale
        ? <Banner>The metagraph or the prices are stale: the standings may be out of date.</Banner>
        : ""}
      <Figures overview={overview} />
      {overview.predictionsInWindow === 0
        ? (
          <EmptyState
            why="Nothing has been scored yet: miners are scored once the events they predicted resolve and the scoring job runs."
            next={DEMO_HINT}
          />
        )
        : ""}
      <h2>Where to go</h2>
      <ul>
        <li>
          <a href="/leaderboard">Leaderboard</a>: the miners' standings, with two baselines to compare them
          with.
        </li>
        <li>
          <a href="/events">Events</a>: the market catalog, filtered and sorted.
        </li>
        <li>
          <a href="/scored">Scored events</a>: resolved events and how each miner did on them.
        </li>
        <li>
          <a href="/methodology">Methodology</a>: how miners are scored and paid.
        </li>
        <li>
          <a href="/docs">API reference</a>: every JSON route (the{" "}
          <a href="/openapi.json">OpenAPI document</a>).
        </li>
      </ul>
      <h2>The same data as JSON</h2>
      <ul>
        <li>
          <a href="/v1/overview">/v1/overview</a>: the figures above.
        </li>
        <li>
          <a href="/v1/leaderboard">/v1/leaderboard</a>: the standings (also as CSV).
        </li>
        <li>
          <a href="/v1/events">/v1/events</a>: the live events.
        </li>
        <li>
          <a href="/v1/events/scored">/v1/events/scored</a>: the scored events.
        </li>
      </ul>
    </Layout>
  );
}

function Figures(props: { overview: Overview }) {
  const { overview } = props;
  return (
    <dl class="figures">
      <div>
        <dt>Events live</dt>
        <dd>
          <a href="/events">{count(overview.eventsLive)}</a>
        </dd>
      </div>
      <div>
        <dt>Miners scored</dt>
        <dd>
          <a href="/leaderboard">{count(overview.minersScored)}</a>{" "}
          <span class="muted">of {count(overview.miners)}</span>
        </dd>
      </div>
      <div>
        <dt>Predictions in the window</dt>
        <dd>
          {count(overview.predictionsInWindow)}{" "}
          <span class="muted">on {count(overview.scoredEventsInWindow)} events</span>
        </dd>
      </div>
      <div>
        <dt>Last scoring run</dt>
        <dd>{overview.lastScoringRun === null ? "not yet" : utc(overview.lastScoringRun)}</dd>
      </div>
    </dl>
  );
}
