import type { TransactionSql } from "postgres";
import type { ScoredPredictionRecord, WindowRow } from "../score_store.ts";

/** A `scored_predictions` row (migration 020): a scored prediction as columns. */
export interface RowColumns {
  event_id: string;
  agent_prediction_id: string;
  miner_hotkey: string;
  miner_uid: number;
  predicted_at_ms: bigint;
  resolved_at_ms: bigint;
  counted: boolean;
  reasons: string[];
  p_win: number | null;
  brier: number | null;
  called: boolean | null;
  market_brier: number | null;
  p_predicted: number | null;
  stake_return: number | null;
}

export const ROW_COLUMNS = [
  "event_id",
  "agent_prediction_id",
  "miner_hotkey",
  "miner_uid",
  "predicted_at_ms",
  "resolved_at_ms",
  "counted",
  "reasons",
  "p_win",
  "brier",
  "called",
  "market_brier",
  "p_predicted",
  "stake_return",
] as const;

export function recordOf(row: RowColumns): ScoredPredictionRecord {
  return {
    agentPredictionId: row.agent_prediction_id,
    eventId: row.event_id,
    minerHotkey: row.miner_hotkey,
    minerUid: row.miner_uid,
    predictedAtMs: Number(row.predicted_at_ms),
    resolvedAtMs: Number(row.resolved_at_ms),
    counted: row.counted,
    reasons: row.reasons,
    pWin: row.p_win,
    brier: row.brier,
    called: row.called,
    marketBrier: row.market_brier,
    pPredicted: row.p_predicted,
    stakeReturn: row.stake_return,
  };
}

/** What `windowRows` selects: a page event, with one of its counted rows (null columns: none). */
export interface WindowColumns {
  event_id: string;
  resolved_at_ms: bigint;
  miner_hotkey: string | null;
  miner_uid: number | null;
  brier: number | null;
  market_brier: number | null;
  called: boolean | null;
  p_predicted: number | null;
  stake_return: number | null;
}

export function windowRowOf(row: WindowColumns): WindowRow[] {
  if (row.miner_hotkey === null) return [];
  return [{
    eventId: row.event_id,
    minerHotkey: row.miner_hotkey,
    minerUid: row.miner_uid!,
    resolvedAtMs: Number(row.resolved_at_ms),
    brier: row.brier,
    marketBrier: row.market_brier,
    called: row.called,
    pPredicted: row.p_predicted,
    stakeReturn: row.stake_return,
  }];
}

/**
 * Upserts rows in one statement: one array parameter per column, unnested. A row whose columns
 * are all equal to the stored ones is not rewritten.
 */
export async function upsertRows(tx: TransactionSql, rows: readonly ScoredPredictionRecord[]): Promise<void> {
  const column = <T>(pick: (row: ScoredPredictionRecord) => T) => tx.array(rows.map(pick) as never[]);
  await tx`INSERT INTO scored_predictions (event_id, agent_prediction_id, miner_hotkey, miner_uid,
      predicted_at_ms, resolved_at_ms, counted, reasons, p_win, brier, called, market_brier, p_predicted,
      stake_return)
    SELECT * FROM unnest(${column((r) => r.eventId)}::TEXT[], ${column((r) => r.agentPredictionId)}::TEXT[],
      ${column((r) => r.minerHotkey)}::TEXT[], ${column((r) => r.minerUid)}::INTEGER[],
      ${column((r) => r.predictedAtMs)}::BIGINT[], ${column((r) => r.resolvedAtMs)}::BIGINT[],
      ${column((r) => r.counted)}::BOOLEAN[], ${column((r) => JSON.stringify(r.reasons))}::JSONB[],
      ${column((r) => r.pWin)}::FLOAT8[], ${column((r) => r.brier)}::FLOAT8[],
      ${column((r) => r.called)}::BOOLEAN[], ${column((r) => r.marketBrier)}::FLOAT8[],
      ${column((r) => r.pPredicted)}::FLOAT8[], ${column((r) => r.stakeReturn)}::FLOAT8[])
    ON CONFLICT (event_id, agent_prediction_id) DO UPDATE SET (miner_hotkey, miner_uid, predicted_at_ms,
      resolved_at_ms, counted, reasons, p_win, brier, called, market_brier, p_predicted, stake_return) = (
      EXCLUDED.miner_hotkey, EXCLUDED.miner_uid, EXCLUDED.predicted_at_ms, EXCLUDED.resolved_at_ms,
      EXCLUDED.counted, EXCLUDED.reasons, EXCLUDED.p_win, EXCLUDED.brier, EXCLUDED.called,
      EXCLUDED.market_brier, EXCLUDED.p_predicted, EXCLUDED.stake_return)
    WHERE (scored_predictions.miner_hotkey, scored_predictions.miner_uid, scored_predictions.predicted_at_ms,
      scored_predictions.resolved_at_ms, scored_predictions.counted, scored_predictions.reasons,
      scored_predictions.p_win, scored_predictions.brier, scored_predictions.called,
      scored_predictions.market_brier, scored_predictions.p_predicted, scored_predictions.stake_return)
      IS DISTINCT FROM (EXCLUDED.miner_hotkey, EXCLUDED.miner_uid, EXCLUDED.predicted_at_ms,
      EXCLUDED.resolved_at_ms, EXCLUDED.counted, EXCLUDED.reasons, EXCLUDED.p_win, EXCLUDED.brier,
      EXCLUDED.called, EXCLUDED.market_brier, EXCLUDED.p_predicted, EXCLUDED.stake_return)`;
}
