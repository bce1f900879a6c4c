import { type Leaderboard, type LeaderboardNeuron, SORT_COLUMNS } from "../../../actors/scoring/mod.ts";
import { BOARD_COLUMNS, type BoardColumn } from "../../scoring/leaderboard_columns.ts";
import { type LeaderboardQuery, leaderboardSearch } from "../../scoring/leaderboard_query.ts";
import { TableScroll } from "../kit/blocks.tsx";
import { BaselineRow, MinerRow } from "./board_rows.tsx";

type View = Omit<LeaderboardQuery, "format">;

const ORDER_WORDS = { asc: "ascending", desc: "descending" } as const;

/**
 * A column's header: its name explained (`abbr title`); a sortable one links to the board sorted
 * by it (the other order when it is the sorted column, else its own default order) and, when
 * sorted, says so with `aria-sort`.
 */
function Header(props: { column: BoardColumn; view: View }) {
  const { column, view } = props;
  const name = <abbr title={column.meaning}>{column.heading}</abbr>;
  const cls = column.numeric ? "num" : undefined;
  if (column.sort === null) return <th scope="col" class={cls}>{name}</th>;
  const sorted = column.sort === view.sort;
  const order = sorted ? (view.order === "asc" ? "desc" : "asc") : SORT_COLUMNS[column.sort].defaultOrder;
  const href = `/leaderboard${leaderboardSearch({ sort: column.sort, order, limit: view.limit })}`;
  return (
    <th scope="col" class={cls} aria-sort={sorted ? ORDER_WORDS[view.order] : undefined}>
      <a href={href}>
        {name}
        {sorted ? <span aria-hidden="true">{view.order === "asc" ? " ▲" : " ▼"}</span> : ""}
      </a>
    </th>
  );
}

/** The board's table: the baselines pinned first (not ranked), then the view's miners in its order. */
export function BoardTable(props: { board: Leaderboard; rows: readonly LeaderboardNeuron[]; view: View }) {
  const { board, rows, view } = props;
  const sortedBy = BOARD_COLUMNS.find((column) => column.sort === view.sort)?.heading ?? view.sort;
  return (
    <TableScroll label="Leaderboard table">
      <table id="leaderboard" class="board">
        <caption>
          Forecasting miners sorted by {sortedBy},{" "}
          {ORDER_WORDS[view.order]}; the baselines are pinned first and not ranked. Select a column's name to
          sort by it.
        </caption>
        <thead>
          <tr>{BOARD_COLUMNS.map((column) => <Header column={column} view={view} />)}</tr>
        </thead>
        <tbody class="baselines">
          {board.baselines.map((baseline) => <BaselineRow baseline={baseline} />)}
        </tbody>
        <tbody class="miners">
          {rows.map((row) => <MinerRow row={row} />)}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** What each column means, under the table (the headers' tooltips say the same). */
export function ColumnDefinitions() {
  return (
    <dl class="defs">
      {BOARD_COLUMNS.map((column) => (
        <>
          <dt>{column.heading}</dt>
          <dd>{column.meaning}</dd>
        </>
      ))}
    </dl>
  );
}
