import type { Context } from "hono";
import { Layout } from "./kit/layout.tsx";
import { renderPage } from "./kit/render.ts";

/** `GET /`: what the service is and where to go. */
export function homePage(c: Context): Promise<Response> {
  return renderPage(
    c,
    <Layout title="Home" path="/">
      <h1>Forecasting Gateway</h1>
      <p class="lead">
        The service a Bittensor forecasting subnet runs on: a catalog of prediction-market events, miners'
        forecasting agents run by validators, miners scored on a public leaderboard, and consensus forecasts
        for customers.
      </p>
      <ul>
        <li>
          <a href="/leaderboard">Leaderboard</a>: the miners' standings.
        </li>
        <li>
          <a href="/events">Events</a>: the market catalog.
        </li>
        <li>
          <a href="/scored">Scored events</a>: resolved events and how the miners did.
        </li>
        <li>
          <a href="/methodology">Methodology</a>: how miners are scored.
        </li>
        <li>
          <a href="/docs">API reference</a>: every JSON route.
        </li>
      </ul>
    </Layout>,
  );
}
