import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { ManualClock } from "../../actors/kernel/mod.ts";
import {
  type MetagraphSnapshot,
  type MetagraphSource,
  type Neuron,
  type Signer,
  signerFromSecretHex,
  signRequest,
} from "../../actors/validators/mod.ts";
import type { MarketSource } from "../../actors/catalog/mod.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { Storage } from "../../storage/storage.ts";
import { ADMIN_TOKEN, adminInit, createOrg, type Requester } from "./access.ts";
import { eventRecord, putEvents } from "./events.ts";
import { runJobOnce } from "./jobs.ts";
import { openTestService, type TestService } from "./test_service.ts";

/** A deterministic sr25519 signer named by `label` (its seed is the SHA-256 of the label). */
export function testSigner(label: string): Signer {
  return signerFromSecretHex(bytesToHex(sha256(utf8ToBytes(`signer:${label}`))));
}

/** 1,000 TAO in rao: the stake of the fixtures' validators. */
/** The validator loop's two signed routes. */
export const LEASE = "/v1/validators/agent-and-event";
export const SUBMIT = "/v1/validators/prediction";

export const VALIDATOR_STAKE_RAO = 1_000n * 10n ** 9n;

/** A neuron of the loop's metagraph. */
export function loopNeuron(uid: number, hotkey: string, options: Partial<Neuron> = {}): Neuron {
  return {
    uid,
    hotkey,
    coldkey: testSigner(`coldkey-${uid}`).hotkey,
    active: true,
    validatorPermit: false,
    stakeRao: 0n,
    emissionRao: 0n,
    incentive: 0,
    consensus: 0,
    trust: 0,
    validatorTrust: 0,
    dividends: 0,
    lastUpdate: 1,
    ...options,
  };
}

/** Validators (permit, 1,000 TAO staked) first, then miners, uids in that order. */
export function loopMetagraph(
  validators: readonly Signer[],
  minerHotkeys: readonly string[],
): MetagraphSnapshot {
  const neurons = [
    ...validators.map((signer, uid) =>
      loopNeuron(uid, signer.hotkey, { validatorPermit: true, stakeRao: VALIDATOR_STAKE_RAO })
    ),
    ...minerHotkeys.map((hotkey, index) => loopNeuron(validators.length + index, hotkey)),
  ];
  return { netuid: 41, block: 100, neurons };
}

/** A metagraph source answering whatever `current` holds. */
export function settableSource(first: MetagraphSnapshot): MetagraphSource & { current: MetagraphSnapshot } {
  return {
    name: "test",
    current: first,
    fetch() {
      return Promise.resolve(this.current);
    },
  };
}

export interface SignOptions {
  nowMs: number;
  body?: string;
  nonce?: string;
  minerHotkey?: string;
}

/** A request signed by `signer` in the validator role; a JSON content type when there is a body. */
export function signedInit(signer: Signer, method: string, path: string, options: SignOptions): RequestInit {
  const headers = signRequest(
    signer,
    { method, url: path, ...(options.body === undefined ? {} : { body: options.body }), ...minerOf(options) },
    { role: "validator", nowMs: options.nowMs, ...(options.nonce ? { nonce: options.nonce } : {}) },
  );
  if (options.body === undefined) return { method, headers };
  return { method, headers: { ...headers, "content-type": "application/json" }, body: options.body };
}

function minerOf(options: SignOptions): { minerHotkey?: string } {
  return options.minerHotkey === undefined ? {} : { minerHotkey: options.minerHotkey };
}

/** A minimal agent whose code differs by `label`. */
export function agentCode(label: string): string {
  return `# agent ${label}\ndef agent_main(event):\n    return {"label": ${JSON.stringify(label)}}\n`;
}

/** Stores a new agent version for `minerHotkey` (no cooldown) and returns its id. */
export async function uploadAgent(storage: Storage, minerHotkey: string, code: string, nowMs: number) {
  const digest = bytesToHex(sha256(utf8ToBytes(code)));
  const outcome = await storage.agents.upload(minerHotkey, {
    versionId: `agv_${digest.slice(0, 24)}`,
    sha256: digest,
    sizeBytes: utf8ToBytes(code).length,
    name: null,
    code,
  }, { nowMs, cooldownMs: 0 });
  assert.equal(outcome.outcome, "created");
  return outcome.outcome === "created" ? outcome.version.versionId : "";
}

/** Registers `hotkey` as a miner of `orgId` through the admin API. */
export async function registerMiner(request: Requester, orgId: string, hotkey: string): Promise<void> {
  const response = await request(`/admin/v1/orgs/${orgId}/miners`, adminInit("POST", { hotkey }));
  assert.equal(response.status, 201, await response.text());
}

/** `count` pool events (72 h to end, prices in the band), ids `<prefix>-0…`. */
export function poolEvents(count: number, nowMs: number, prefix = "ev"): EventRecord[] {
  return Array.from(
    { length: count },
    (_, index) =>
      eventRecord(`${prefix}-${String(index).padStart(5, "0")}`, nowMs, { endsInHours: 48 + (index % 96) }),
  );
}

export interface LoopOptions {
  validators: readonly Signer[];
  /** Miners, or how many (named `miner-<i>`). */
  miners: readonly Signer[] | number;
  events: number;
  env?: Record<string, string>;
  storage?: Storage;
  /** Where a provider catalog's `apiKeyEnv` variables are read (`FGW_PROVIDERS_FILE` in `env`). */
  providerEnv?: Record<string, string>;
  /** The catalog's market source (e.g. a Gamma source on a fake Gamma server). */
  marketSource?: MarketSource;
}

/** A service whose loop is ready to lease: metagraph synced, miners registered with agents, events in the pool, assignments synced. */
export interface Loop {
  service: TestService;
  source: MetagraphSource & { current: MetagraphSnapshot };
  orgId: string;
  events: EventRecord[];
  /** Runs the metagraph sync, then the assignment sync, once each. */
  sync(): Promise<void>;
}

/**
 * Opens a service on `options.storage` (default in-memory KV) with its clock at the real time (the
 * assignment store compares leases and event ends on the storage's clock: the host's or the
 * database server's), and sets the loop up through the admin API and storage.
 */
export async function openLoop(options: LoopOptions): Promise<Loop> {
  const miners = typeof options.miners === "number"
    ? Array.from({ length: options.miners }, (_, index) => testSigner(`miner-${index}`))
    : options.miners;
  const source = settableSource(loopMetagraph(options.validators, miners.map((m) => m.hotkey)));
  const service = await openTestService({
    env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, ...options.env },
    clock: new ManualClock(Date.now()),
    metagraphSource: source,
    ...(options.storage ? { storage: options.storage } : {}),
    ...(options.providerEnv ? { providerEnv: options.providerEnv } : {}),
    ...(options.marketSource ? { marketSource: options.marketSource } : {}),
  });
  const nowMs = service.clock.now();
  const events = poolEvents(options.events, nowMs);
  await putEvents(service.storage, events, nowMs);
  const orgId = await createOrg(service.request, "Miners Inc");
  for (const [index, miner] of miners.entries()) {
    await registerMiner(service.request, orgId, miner.hotkey);
    await uploadAgent(service.storage, miner.hotkey, agentCode(`miner-${index}`), nowMs);
  }
  const sync = async () => {
    const at = { leases: service.storage.jobLeases, nowMs: service.clock.now() };
    await runJobOnce(service.metagraph.sync, at);
    await runJobOnce(service.assignmentSync, at);
  };
  await sync();
  return { service, source, orgId, events, sync };
}

/**
 * A second service instance of `loop` on `storage` (another handle on the same store): its own
 * actors, caches and metagraph view (refreshed from storage), the same settings and clock.
 */
export async function openSecondInstance(
  loop: Loop,
  storage: Storage,
  env: Record<string, string> = {},
  providerEnv?: Record<string, string>,
) {
  const service = await openTestService({
    env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
    clock: loop.service.clock,
    metagraphSource: loop.source,
    storage,
    ...(providerEnv ? { providerEnv } : {}),
  });
  await service.metagraph.view.refresh();
  return service;
}

/** A well-formed submission for `event`: a valid binary prediction of its first outcome. */
export function submissionFor(
  agentPredictionId: string,
  event: EventRecord,
  overrides: Record<string, unknown> = {},
) {
  const [yes, no] = event.outcomes.map((outcome) => outcome.outcomeId);
  return {
    agentPredictionId,
    prediction: {
      schemaVersion: "1.0",
      submittedAt: "2026-11-20T12:00:00.000Z",
      predictionType: "binary",
      predictedOutcomeId: yes!,
      confidence: 0.7,
      outcomeProbabilities: { [yes!]: 0.7, [no!]: 0.3 },
      outcomePricesAtPrediction: { [yes!]: 0.11, [no!]: 0.89 },
      executionMetadata: { predictionIsInvalid: false, runtimeMs: 1200 },
      ...overrides,
    },
    reasoningTrace: { schemaVersion: "1.0", trace: { steps: ["looked at the market"] } },
  };
}

/** What a test needs of a leased assignment. */
export interface LeasedWork {
  agentPredictionId: string;
  minerHotkey: string;
  event: EventRecord;
}

/** Leases one assignment as `signer` through `GET /v1/validators/agent-and-event` (one must be available). */
export async function leaseAs(service: TestService, signer: Signer): Promise<LeasedWork> {
  const response = await service.request(
    LEASE,
    signedInit(signer, "GET", LEASE, { nowMs: service.clock.now() }),
  );
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  assert.ok(body.assignment, `Nothing to lease: ${JSON.stringify(body)}`);
  const { agentPredictionId, miner, event } = body.assignment;
  return { agentPredictionId, minerHotkey: miner.hotkey, event };
}

/** Submits `submissionFor(work)` as `signer` through `POST /v1/validators/prediction`; answers its status. */
export async function submitAs(service: TestService, signer: Signer, work: LeasedWork): Promise<number> {
  const body = JSON.stringify(submissionFor(work.agentPredictionId, work.event));
  const response = await service.request(
    SUBMIT,
    signedInit(signer, "POST", SUBMIT, { nowMs: service.clock.now(), body }),
  );
  await response.body?.cancel();
  return response.status;
}
