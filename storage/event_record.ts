/** The stored and served shape of a market event (docs/events.md). Timestamps are ISO 8601 UTC. */
export interface EventRecord {
  id: string;
  source: string;
  sourceMarketId: string;
  question: string;
  description: string;
  outcomes: Outcome[];
  endDate: string;
  startDate: string;
  tagsAtAdmission: number[];
  liquidityUsd: number;
  volumeUsd: number;
  volumeRecentUsd: number;
  currentLiquidityUsd: number;
  currentVolumeUsd: number;
  currentOutcomePrices: Record<string, number>;
  admittedAt: string;
  lastSeenAt: string;
  resolution: Resolution;
  outcomePricesAtAdmission: Record<string, number>;
}

export interface Outcome {
  outcomeId: string;
  name: string;
}

export type ResolutionStatus = "unresolved" | "resolved" | "voided";

export interface Resolution {
  resolvedAt: string | null;
  resolutionStatus: ResolutionStatus;
  winningOutcomeId: string | null;
  winningOutcomeName: string | null;
  finalOutcomePrices: Record<string, number> | null;
}

/** An event with its storage version (for conditional writes) and last write time. */
export interface StoredEvent {
  event: EventRecord;
  version: number;
  updatedAtMs: number;
  /**
   * Present when the event was retired (taken out of the catalog, e.g. a sample market of the
   * offline snapshot once the live source answered). A retired event keeps its version, so the
   * retirement travels the change feed like any write, and a later admission brings it back.
   */
  retired?: true;
}

/** The resolution of a market that has not settled. */
export const UNRESOLVED: Readonly<Resolution> = Object.freeze({
  resolvedAt: null,
  resolutionStatus: "unresolved",
  winningOutcomeId: null,
  winningOutcomeName: null,
  finalOutcomePrices: null,
});
