/**
 * The demo's reading of the public board (`GET /v1/leaderboard`): the demo miners' rows, whether
 * a score rose above 0, whether the score table has caught up with every resolved market, and
 * the board as a table to print.
 */
import type { z } from "zod";
import { LeaderboardSchema } from "../../routes/scoring/leaderboard_api.ts";
import type { DemoMiner } from "./demo_miners.ts";

export type Board = z.infer<typeof LeaderboardSchema>;
type Row = Board["neurons"][number];

/** The board as the service serves it now. */
export async function fetchBoard(base: string, signal?: AbortSignal): Promise<Board> {
  const response = await fetch(`${base}/v1/leaderboard?limit=256`, signal ? { signal } : {});
  if (!response.ok) {
    throw new Error(`GET /v1/leaderboard answered ${response.status}: ${await response.text()}`);
  }
  return LeaderboardSchema.parse(await response.json());
}

/** The demo miners' rows of `board`, in the miners' order (a miner not on it yet is left out). */
function minerRows(board: Board, miners: readonly DemoMiner[]): { miner: DemoMiner; row: Row }[] {
  return miners.flatMap((miner) => {
    const row = board.neurons.find((neuron) => neuron.hotkey === miner.signer.hotkey);
    return row ? [{ miner, row }] : [];
  });
}

/** The demo miners scored above 0, best first. */
export function scoredAboveZero(
  board: Board,
  miners: readonly DemoMiner[],
): { miner: DemoMiner; row: Row }[] {
  return minerRows(board, miners)
    .filter(({ row }) => row.scoring.score > 0)
    .toSorted((a, b) => b.row.scoring.score - a.row.scoring.score);
}

/** True when every demo miner's row counts `resolved` scored markets. */
export function caughtUp(board: Board, miners: readonly DemoMiner[], resolved: number): boolean {
  const rows = minerRows(board, miners);
  return rows.length === miners.length && rows.every(({ row }) => row.scoring.preds >= resolved);
}

/** The demo miners' rows as an aligned table. */
export function boardTable(board: Board, miners: readonly DemoMiner[]): string[] {
  const header = ["uid", "agent", "score", "edge", "brier", "valid", "invalid", "gate", "incentive"];
  const rows = minerRows(board, miners).map(({ miner, row }) => [
    String(row.uid),
    miner.agent,
    row.scoring.score.toFixed(6),
    row.scoring.edge.toFixed(6),
    row.scoring.brier.toFixed(6),
    String(row.scoring.validPreds),
    String(row.scoring.invalidPreds),
    row.scoring.gate,
    row.forecastingIncentive.toFixed(6),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  return [header, ...rows].map((cells) =>
    cells.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()
  );
}
