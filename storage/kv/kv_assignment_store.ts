import { StoreRefusal } from "../store_refusal.ts";
import {
  type Assignment,
  type AssignmentTarget,
  digestOf,
  holdsLease,
  type PredictionDigest,
  type ScoringPrediction,
  scoringPredictionOf,
  type StoredPrediction,
} from "../assignment_record.ts";
import type {
  AssignmentStore,
  ClaimOptions,
  ClaimResult,
  EnsureOptions,
  EnsureResult,
  HeldLeaseOptions,
  ListEventOptions,
  ListScoredOptions,
  MarkScoredOptions,
  RetireScope,
  ScoredMarks,
  SubmitOptions,
  SubmitReceipt,
} from "../assignment_store.ts";
import { assignmentKey, predictionKey } from "./_assignment_keys.ts";
import { tryClaim } from "./_kv_assignment_claim.ts";
import { countUse } from "./_kv_signed_use.ts";
import { ensureAssignments, retireAssignments } from "./_kv_assignment_queue.ts";
import { markPredictionScored, readTrace, submitPrediction } from "./_kv_prediction_writes.ts";

/** Claim attempts whose commit lost a race (to another handle) before giving up. */
const MAX_CLAIM_ATTEMPTS = 200;

export interface KvAssignmentStoreOptions {
  /** The storage's clock: the host's wall clock, as for job leases (docs/runtime.md). */
  now?: () => number;
}

/**
 * Assignments and predictions in Deno KV (key layout in `_assignment_keys.ts`). A claim reads the
 * queue and commits the lease checked against the assignment, the miner's turn and the
 * validator's gate entries (a versionstamp-checked claim); a lost check means another claim came
 * first, and the claim reads again. Claims through one handle run one at a time (they would all
 * race for the same first miner and all but one lose); handles of other instances race on the checks.
 */
export class KvAssignmentStore implements AssignmentStore {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;
  #claims: Promise<unknown> = Promise.resolve();

  constructor(kv: Deno.Kv, options: KvAssignmentStoreOptions = {}) {
    this.#kv = kv;
    this.#now = options.now ?? (() => Date.now());
  }

  ensure(targets: readonly AssignmentTarget[], options: EnsureOptions = {}): Promise<EnsureResult> {
    return ensureAssignments(this.#kv, targets, { batchSize: options.batchSize, now: this.#now });
  }

  retire(scope: RetireScope): Promise<number> {
    return retireAssignments(this.#kv, scope, this.#now);
  }

  claim(validatorHotkey: string, options: ClaimOptions): Promise<ClaimResult> {
    const run = this.#claims.then(() => this.#claim(validatorHotkey, options));
    this.#claims = run.catch(() => {});
    return run;
  }

  /** The use's hit is counted once, before the attempts; its nonce is taken by the attempt that commits. */
  async #claim(validatorHotkey: string, { use, ...options }: ClaimOptions): Promise<ClaimResult> {
    const started = use ? await countUse(this.#kv, use, this.#now) : null;
    if (started && "refused" in started) return { kind: "use_refused", use: started.refused };
    const counted = started ? { use: started.counted } : {};
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const token = crypto.randomUUID();
      const nowMs = this.#now();
      const result = await tryClaim(this.#kv, validatorHotkey, { ...options, ...counted, nowMs, token });
      if (result) return result;
    }
    throw new StoreRefusal("conflict", "Cannot claim an assignment: the queue is too contended");
  }

  submit(agentPredictionId: string, options: SubmitOptions): Promise<SubmitReceipt> {
    return submitPrediction(this.#kv, agentPredictionId, { ...options, now: this.#now });
  }

  markScored(agentPredictionId: string, options: MarkScoredOptions): Promise<boolean> {
    return markPredictionScored(this.#kv, agentPredictionId, options);
  }

  /** One checked commit per prediction (each moves its assignment and its prediction together). */
  async markScoredMany(groups: readonly ScoredMarks[]): Promise<number> {
    let marked = 0;
    for (const { eventId, agentPredictionIds, ...options } of groups) {
      for (const id of agentPredictionIds) {
        const stored = (await this.#kv.get<StoredPrediction>(predictionKey(id))).value;
        if (stored === null || stored.eventId !== eventId) continue;
        if (await markPredictionScored(this.#kv, id, options)) marked++;
      }
    }
    return marked;
  }

  async get(agentPredictionId: string): Promise<Assignment | null> {
    return (await this.#kv.get<Assignment>(assignmentKey(agentPredictionId))).value;
  }

  async heldLease(agentPredictionId: string, options: HeldLeaseOptions): Promise<Assignment | null> {
    const assignment = await this.get(agentPredictionId);
    return assignment && holdsLease(assignment, options, this.#now()) ? assignment : null;
  }

  async getPrediction(agentPredictionId: string): Promise<StoredPrediction | null> {
    return (await this.#kv.get<StoredPrediction>(predictionKey(agentPredictionId))).value;
  }

  getTrace(agentPredictionId: string): Promise<unknown | null> {
    return readTrace(this.#kv, agentPredictionId);
  }

  async listEventPredictions(
    eventId: string,
    { limit, after }: ListEventOptions,
  ): Promise<StoredPrediction[]> {
    const prefix = ["pred_event", eventId];
    const selector = after === undefined ? { prefix } : { prefix, start: [...prefix, `${after}\u0000`] };
    const out: StoredPrediction[] = [];
    for await (const entry of this.#kv.list<StoredPrediction>(selector, { limit })) out.push(entry.value);
    return out;
  }

  /** One prefix listing per event (Deno KV has no multi-prefix read), all in flight at once. */
  async eventDigests(eventIds: readonly string[]): Promise<PredictionDigest[]> {
    return (await this.#perEvent(eventIds)).flat().map(digestOf);
  }

  async scoringPredictionsOfEvents(eventIds: readonly string[]): Promise<ScoringPrediction[]> {
    return (await this.#perEvent(eventIds)).flat().map(scoringPredictionOf);
  }

  async eventsWithUnscored(eventIds: readonly string[]): Promise<string[]> {
    const perEvent = await this.#perEvent(eventIds);
    return perEvent.flatMap((predictions) =>
      predictions.some((p) => p.scored === null) ? [predictions[0]!.eventId] : []
    );
  }

  /** The predictions of each distinct event of `eventIds`, events in id order, listings in flight at once. */
  #perEvent(eventIds: readonly string[]): Promise<StoredPrediction[][]> {
    const sorted = [...new Set(eventIds)].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    return Promise.all(sorted.map(async (eventId) => {
      const out: StoredPrediction[] = [];
      const entries = this.#kv.list<StoredPrediction>({ prefix: ["pred_event", eventId] }, {
        batchSize: 500,
      });
      for await (const entry of entries) out.push(entry.value);
      return out;
    }));
  }

  async eventsPredictedSince(sinceMs: number): Promise<string[]> {
    const events = new Set<string>();
    const selector = { prefix: ["pred_recent"], start: ["pred_recent", sinceMs] };
    for await (const entry of this.#kv.list<string>(selector, { batchSize: 500 })) events.add(entry.value);
    return [...events];
  }

  async listScored(options: ListScoredOptions): Promise<StoredPrediction[]> {
    const { after, miners, limit } = options;
    const prefix = ["pred_scored"];
    const selector = after
      ? { prefix, start: [...prefix, -after.resolvedAtMs, `${after.agentPredictionId}\u0000`] }
      : { prefix };
    const wanted = miners ? new Set(miners.map((miner) => `${miner.uid}:${miner.hotkey}`)) : null;
    const out: StoredPrediction[] = [];
    for await (const entry of this.#kv.list<StoredPrediction>(selector, { batchSize: 200 })) {
      const prediction = entry.value;
      if (prediction.scored!.resolvedAtMs < options.resolvedSinceMs || out.length >= limit) break;
      if (wanted && !wanted.has(`${prediction.minerUid}:${prediction.minerHotkey}`)) continue;
      out.push(prediction);
    }
    return out;
  }

  async countLive(validatorHotkey: string): Promise<number> {
    const nowMs = this.#now();
    let live = 0;
    for await (const entry of this.#kv.list<number>({ prefix: ["asg_held", validatorHotkey] })) {
      if (entry.value > nowMs) live++;
    }
    return live;
  }

  async latestRound(eventId: string): Promise<number | null> {
    for await (
      const entry of this.#kv.list({ prefix: ["asg_event", eventId] }, { reverse: true, limit: 1 })
    ) {
      return entry.key[2] as number;
    }
    return null;
  }
}
