import type { Context } from "hono";
import type { Leaderboard, LeaderboardView } from "../../../actors/scoring/mod.ts";
import {
  type BoardViews,
  type LeaderboardQuery,
  leaderboardSearch,
  parseLeaderboardQuery,
} from "../../scoring/leaderboard_query.ts";
import { Banner, DEMO_HINT, EmptyState, Provenance } from "../kit/blocks.tsx";
import { every, utc } from "../kit/format.ts";
import { Layout } from "../kit/layout.tsx";
import { htmlOf } from "../kit/render.ts";
import { sendPage } from "../kit/page_answer.ts";
import { BASELINE_LABELS } from "./board_rows.tsx";
import { BoardTable, ColumnDefinitions } from "./board_table.tsx";

/** What the page reads: the leaderboard view and the rendered views it shares with `/v1/leaderboard`. */
export interface LeaderboardPageDeps {
  view: LeaderboardView;
  views: BoardViews;
}

/** The page shows the whole board unless `limit` says otherwise (the JSON route's default is 20). */
const PAGE_DEFAULTS = { limit: "256" };

/**
 * `GET /leaderboard`: the board as a table sorted on the server (`sort`, `order`, `limit`, validated
 * as `GET /v1/leaderboard` validates them), rendered once per (board, view).
 */
export function leaderboardPage(deps: LeaderboardPageDeps) {
  return async (c: Context): Promise<Response> => {
    const query = parseLeaderboardQuery(c, deps.view.netuid, PAGE_DEFAULTS);
    const board = await deps.view.current();
    const key = `page/${query.sort}/${query.order}/${query.limit}`;
    const html = await deps.views.text(
      board,
      key,
      () => htmlOf(<BoardPage board={board} query={query} deps={deps} />),
    );
    return sendPage(c, html);
  };
}

function BoardPage(props: { board: Leaderboard; query: LeaderboardQuery; deps: LeaderboardPageDeps }) {
  const { board, query } = props;
  const rows = props.deps.views.rows(board, query);
  const { scoringMeta, window } = board;
  return (
    <Layout title="Leaderboard" path="/leaderboard" wide>
      <h1>Leaderboard</h1>
      <Provenance
        computedAt={window.lastRunAt}
        window={`the ${scoringMeta.windowDays} days to ${utc(window.to)} (events resolved in that window)`}
        note={<>Board built {utc(board.updatedAt)}, rebuilt {every(props.deps.view.cacheMs)}.</>}
      />
      <StaleBanner board={board} />
      <p>
        This view as <a href={`/v1/leaderboard${leaderboardSearch(query, "csv")}`}>CSV</a> or{" "}
        <a href={`/v1/leaderboard${leaderboardSearch(query)}`}>JSON</a>.
      </p>
      {board.count === 0 ? <NoMiners /> : <Standings board={board} />}
      {board.count === 0 ? "" : <BoardTable board={board} rows={rows} view={query} />}
      {rows.length < board.count ? <ShowAll query={query} shown={rows.length} count={board.count} /> : ""}
      <h2>What the columns mean</h2>
      <ColumnDefinitions />
      <h2>Baselines</h2>
      <p>
        Two forecasters that are not miners, scored exactly as a miner is over every event scored in the
        window, with no edge and no payout: the <strong>{BASELINE_LABELS.market.toLowerCase()}</strong>{" "}
        (its prices divided by their sum) and the <strong>{BASELINE_LABELS.consensus.toLowerCase()}</strong>
        {" "}
        (the customer consensus at its last hourly snapshot before the event resolved; events without one are
        not counted). A miner whose mean Brier is below the market's forecasts better than the market did.
      </p>
    </Layout>
  );
}

function StaleBanner(props: { board: Leaderboard }) {
  const { board } = props;
  if (!board.stale) return null;
  return (
    <Banner>
      These figures may be out of date: the metagraph or the prices have not been synced recently.
      {board.prices.alphaUsd === null ? " No prices are known yet, so no payout in α or $ is shown." : ""}
    </Banner>
  );
}

function NoMiners() {
  return (
    <EmptyState
      why="No forecasting miner is on the board: the metagraph has not been synced yet, or no miner's hotkey is registered to an organisation."
      next={DEMO_HINT}
    />
  );
}

/** The board's size, and why every score is 0 when nothing was scored in the window. */
function Standings(props: { board: Leaderboard }) {
  const { board } = props;
  if (board.window.countedPredictions > 0) {
    return (
      <p>
        {board.count} forecasting miners; {board.window.countedPredictions} counted predictions on{" "}
        {board.window.scoredEvents} events scored in the window.
      </p>
    );
  }
  return (
    <EmptyState
      why={`${board.count} forecasting miners, but no prediction was scored in the last ${board.scoringMeta.windowDays} days: every score is 0 until events the miners predicted resolve and the scoring job runs.`}
      next={DEMO_HINT}
    />
  );
}

function ShowAll(props: { query: LeaderboardQuery; shown: number; count: number }) {
  const all = leaderboardSearch({ ...props.query, limit: 256 });
  return (
    <p>
      Showing the first {props.shown} of {props.count} miners. <a href={`/leaderboard${all}`}>Show all</a>
    </p>
  );
}
