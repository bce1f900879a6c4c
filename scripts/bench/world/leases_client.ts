/**
 * The load generator of `deno task bench:leases`, run as its own process (pinned apart from the
 * service when `taskset` exists) so that signing never takes the service's CPU. Validators lease
 * and submit over HTTP until nothing is left or the deadline passes: each lease request is signed
 * ahead (its body is empty), each submission when its assignment is known. Reads its settings as
 * JSON from `BENCH_CLIENT`; prints one JSON line with what it saw.
 */
import { cpuUsage } from "node:process";
import {
  loadWasmSr25519Verify,
  type Signer,
  signerFromSecretHex,
  signRequest,
} from "../../../actors/validators/mod.ts";

export interface ClientSettings {
  baseUrl: string;
  /** Validators' secrets (hex seeds). */
  seeds: string[];
  /** Lease requests signed ahead per validator. */
  presigned: number;
  /** Seconds after the lease requests are signed during which new cycles start. */
  seconds: number;
}

export interface ClientReport {
  cycles: number;
  seconds: number;
  latenciesMs: number[];
  leasedIds: string[];
  /** Answers other than 200, by `status code`. */
  failures: Record<string, number>;
  /** CPU seconds this process used while the validators ran (user + system). */
  cpuSeconds: number;
}

const LEASE = "/v1/validators/agent-and-event";
const SUBMIT = "/v1/validators/prediction";

function submission(agentPredictionId: string, event: { outcomes: { outcomeId: string }[] }): string {
  const [yes, no] = event.outcomes.map((outcome) => outcome.outcomeId);
  return JSON.stringify({
    agentPredictionId,
    prediction: {
      schemaVersion: "1.0",
      submittedAt: new Date().toISOString(),
      predictionType: "binary",
      predictedOutcomeId: yes,
      confidence: 0.6,
      outcomeProbabilities: { [yes!]: 0.6, [no!]: 0.4 },
      outcomePricesAtPrediction: { [yes!]: 0.5, [no!]: 0.5 },
      executionMetadata: { predictionIsInvalid: false },
    },
    reasoningTrace: { schemaVersion: "1.0", trace: { note: "benchmark" } },
  });
}

/** A lease request signed ahead, used only while its timestamp is well inside the window. */
interface Presigned {
  headers: Record<string, string>;
  atMs: number;
}

/** Half the service's default signature window: a request signed earlier is signed again. */
const FRESH_MS = 15_000;

/** Lease requests signed ahead, timestamped at the round's middle (signing takes seconds). */
function signAhead(signer: Signer, settings: ClientSettings): Presigned[] {
  const atMs = Date.now() + Math.min(settings.seconds * 500, FRESH_MS);
  return Array.from({ length: settings.presigned }, () => ({
    headers: signRequest(signer, { method: "GET", url: LEASE }, { role: "validator", nowMs: atMs }),
    atMs,
  }));
}

function leaseHeaders(signer: Signer, ahead: Presigned[]): Record<string, string> {
  const nowMs = Date.now();
  const next = ahead.pop();
  if (next && Math.abs(nowMs - next.atMs) < FRESH_MS) return next.headers;
  return signRequest(signer, { method: "GET", url: LEASE }, { role: "validator", nowMs });
}

async function validator(
  signer: Signer,
  ahead: Presigned[],
  deadlineMs: number,
  settings: ClientSettings,
  report: ClientReport,
): Promise<void> {
  const fail = async (response: Response) => {
    const key = `${response.status} ${(await response.text()).slice(0, 80)}`;
    report.failures[key] = (report.failures[key] ?? 0) + 1;
  };
  while (Date.now() < deadlineMs) {
    const started = performance.now();
    const headers = leaseHeaders(signer, ahead);
    const leased = await fetch(`${settings.baseUrl}${LEASE}`, { headers });
    if (leased.status !== 200) return await fail(leased);
    const body = await leased.json();
    if (!body.assignment) return;
    const text = submission(body.assignment.agentPredictionId, body.assignment.event);
    const signed = signRequest(signer, { method: "POST", url: SUBMIT, body: text }, {
      role: "validator",
      nowMs: Date.now(),
    });
    const acked = await fetch(`${settings.baseUrl}${SUBMIT}`, {
      method: "POST",
      headers: { ...signed, "content-type": "application/json" },
      body: text,
    });
    if (acked.status !== 200) return await fail(acked);
    await acked.body?.cancel();
    report.latenciesMs.push(performance.now() - started);
    report.leasedIds.push(body.assignment.agentPredictionId);
    report.cycles++;
  }
}

async function main(): Promise<void> {
  const settings = JSON.parse(Deno.env.get("BENCH_CLIENT") ?? "{}") as ClientSettings;
  // The schnorrkel WebAssembly build signs about 3.5× faster than `@scure/sr25519`: the generator
  // shares its core with the database's backends, so every cycle it spends signing is theirs.
  await loadWasmSr25519Verify();
  const signers = settings.seeds.map(signerFromSecretHex);
  const report: ClientReport = {
    cycles: 0,
    seconds: 0,
    latenciesMs: [],
    leasedIds: [],
    failures: {},
    cpuSeconds: 0,
  };
  // Sign every validator's leases ahead before the clock starts.
  const ahead = signers.map((signer) => signAhead(signer, settings));
  const started = performance.now();
  const deadlineMs = Date.now() + settings.seconds * 1_000;
  const cpu = cpuUsage();
  await Promise.all(signers.map((signer, i) => validator(signer, ahead[i]!, deadlineMs, settings, report)));
  report.seconds = (performance.now() - started) / 1000;
  const used = cpuUsage(cpu);
  report.cpuSeconds = (used.user + used.system) / 1e6;
  console.log(JSON.stringify(report));
}

if (import.meta.main) await main();
