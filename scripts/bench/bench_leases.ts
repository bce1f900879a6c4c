/**
 * Benchmark of the validator loop: signed lease + submit cycles per second, end to end over HTTP on
 * PostgreSQL, 32 concurrent validators, beside two references measured in the same run: pg-boss 10
 * `fetch` + `complete` with 32 workers (the job-queue reference) and the bare verify
 * bound (1 ÷ the in-process time of the two signature verifications a cycle needs). The service runs
 * in this process with its defaults (verification workers, connection pool); the validators run in
 * another process (pinned to CPU 1 when `taskset` exists), signing their lease requests ahead.
 * Rounds alternate the three; medians are reported.
 * Needs DATABASE_URL (scratch databases are created on that server and dropped).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test deno task bench:leases
 *   BENCH_ROUNDS (3), BENCH_ASSIGNMENTS queued per round (20000, the anchor's pg-boss queue),
 *   BENCH_SECONDS per round at most (20), BENCH_PIN (client | apart | 0), FGW_VERIFY_WORKERS and
 *   FGW_PG_POOL of the service (its defaults)
 */
import { cpuUsage } from "node:process";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { silentLogger } from "../../actors/kernel/mod.ts";
import { loadSr25519Verify, type Signer, signerFromSecretHex } from "../../actors/validators/mod.ts";
import type { MetagraphSnapshot, Neuron } from "../../actors/validators/mod.ts";
import { loadConfig } from "../service/config.ts";
import { withScratchDatabase } from "./world/scratch_database.ts";
import { createService, type Service } from "../service/service.ts";
import { pinServerCpu } from "./world/load.ts";
import type { ClientReport, ClientSettings } from "./world/leases_client.ts";
import { benchPgBoss } from "./world/pgboss.ts";
import { benchVerifyBound } from "./world/verify.ts";
import { seedRound, setUpLoop } from "./world/leases_seed.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const PER_ROUND = Number(Deno.env.get("BENCH_ASSIGNMENTS") ?? 20_000);
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 20);
const VALIDATORS = Number(Deno.env.get("BENCH_VALIDATORS") ?? 32);
const MINERS = 20;
const ADMIN_TOKEN = crypto.randomUUID();
/**
 * `BENCH_PIN`: `client` (default) pins the validators' process to CPU 1 and leaves the service's
 * threads (its event loop and its verification workers) to the scheduler; `apart` also pins the
 * service, every thread, to CPU 0 (the setting before verification workers: give it
 * `FGW_VERIFY_WORKERS=0 FGW_PG_POOL=32` too for the old run); `0` pins nothing
 * (on a host loaded by other work, a pinned core may be the busiest).
 */
const PIN_MODE = Deno.env.get("BENCH_PIN") ?? "client";
const PIN = PIN_MODE !== "0";
/** `FGW_VERIFY_WORKERS` of the service (default: the service's own default). */
const VERIFY_WORKERS = Deno.env.get("FGW_VERIFY_WORKERS");
/** `FGW_PG_POOL` of the service (default: the service's own default, 10). */
const PG_POOL = Deno.env.get("FGW_PG_POOL");

/** A deterministic hex seed per label. */
function seedOf(label: string): string {
  return bytesToHex(sha256(utf8ToBytes(`bench-leases:${label}`)));
}

function neuron(uid: number, signer: Signer, validator: boolean): Neuron {
  return {
    uid,
    hotkey: signer.hotkey,
    coldkey: signer.hotkey,
    active: true,
    validatorPermit: validator,
    stakeRao: validator ? 10n ** 15n : 0n,
    emissionRao: 0n,
    incentive: 0,
    consensus: 0,
    trust: 0,
    validatorTrust: 0,
    dividends: 0,
    lastUpdate: 1,
  };
}

export interface LoopRound {
  cyclesPerSecond: number;
  cycles: number;
  p50Ms: number;
  p99Ms: number;
  doubleLeases: number;
  failures: Record<string, number>;
  /** CPU time per second of the round: the service's process, the validators' process. */
  serviceCpu: number;
  clientCpu: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function runClient(settings: ClientSettings): Promise<ClientReport> {
  const deno = Deno.execPath();
  const script = new URL("./world/leases_client.ts", import.meta.url).pathname;
  const args = ["run", "--allow-net", "--allow-env", "--allow-read", script];
  let command = new Deno.Command(PIN ? "taskset" : deno, {
    args: PIN ? ["-c", "1", deno, ...args] : args,
    stdout: "piped",
    stderr: "inherit",
    env: { BENCH_CLIENT: JSON.stringify(settings) },
  });
  let output: Deno.CommandOutput;
  try {
    output = await command.output();
  } catch {
    command = new Deno.Command(deno, {
      args,
      stdout: "piped",
      stderr: "inherit",
      env: { BENCH_CLIENT: JSON.stringify(settings) },
    });
    output = await command.output();
  }
  if (!output.success) throw new Error("The load generator failed");
  return JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!);
}

async function loopRound(
  service: Service,
  baseUrl: string,
  seeds: string[],
  round: number,
): Promise<LoopRound> {
  await seedRound(service, { round, events: PER_ROUND / MINERS });
  const cpu = cpuUsage();
  const report = await runClient({
    baseUrl,
    seeds,
    // Enough for 2,000 cycles/s (the verify bound on a fast day); beyond that they sign as they go.
    presigned: Math.min(Math.ceil(PER_ROUND / VALIDATORS), Math.ceil((SECONDS * 2_000) / VALIDATORS)),
    seconds: SECONDS,
  });
  const used = cpuUsage(cpu);
  const counts = new Map<string, number>();
  for (const id of report.leasedIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  const sorted = report.latenciesMs.toSorted((a, b) => a - b);
  return {
    cyclesPerSecond: report.cycles / report.seconds,
    cycles: report.cycles,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    doubleLeases: [...counts.values()].filter((n) => n > 1).length,
    failures: report.failures,
    serviceCpu: (used.user + used.system) / 1e6 / report.seconds,
    clientCpu: report.cpuSeconds / report.seconds,
  };
}

function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const serverUrl = Deno.env.get("DATABASE_URL");
  if (!serverUrl) throw new Error("bench:leases needs DATABASE_URL (a PostgreSQL server)");
  const servicePinned = PIN_MODE === "apart" && await pinServerCpu();
  console.log(
    !PIN
      ? "nothing pinned (BENCH_PIN=0)"
      : servicePinned
      ? "service pinned to CPU 0, validators (own process) to CPU 1"
      : "validators (own process) pinned to CPU 1 when taskset exists; the service's threads not pinned",
  );
  const validatorSeeds = Array.from({ length: VALIDATORS }, (_, i) => seedOf(`validator-${i}`));
  const validators = validatorSeeds.map(signerFromSecretHex);
  const miners = Array.from({ length: MINERS }, (_, i) => signerFromSecretHex(seedOf(`miner-${i}`)));
  const metagraph: MetagraphSnapshot = {
    netuid: 41,
    block: 1,
    neurons: [
      ...validators.map((signer, uid) => neuron(uid, signer, true)),
      ...miners.map((signer, i) => neuron(VALIDATORS + i, signer, false)),
    ],
  };
  const loops: LoopRound[] = [];
  const bosses: number[] = [];
  const bounds: number[] = [];
  const verify = await loadSr25519Verify();
  await withScratchDatabase(serverUrl, async (url) => {
    const config = loadConfig({
      FGW_STORAGE: "postgres",
      DATABASE_URL: url,
      ...(PG_POOL ? { FGW_PG_POOL: PG_POOL } : {}),
      ...(VERIFY_WORKERS ? { FGW_VERIFY_WORKERS: VERIFY_WORKERS } : {}),
      FGW_IP_RPM: "0",
      FGW_ADMIN_TOKEN: ADMIN_TOKEN,
      FGW_VALIDATOR_MAX_LEASES: "1000000",
      FGW_VALIDATOR_RPM: "10000000",
    });
    const service = await createService(config, {
      log: silentLogger,
      metagraphSource: { name: "bench", fetch: () => Promise.resolve(metagraph) },
    });
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
    const baseUrl = `http://127.0.0.1:${server.addr.port}`;
    try {
      await setUpLoop(service, { adminToken: ADMIN_TOKEN, miners });
      for (let round = 0; round < ROUNDS; round++) {
        const loop = await loopRound(service, baseUrl, validatorSeeds, round);
        loops.push(loop);
        bosses.push(
          await withScratchDatabase(
            serverUrl,
            (bossUrl) => benchPgBoss(bossUrl, { jobs: PER_ROUND, workers: VALIDATORS, seconds: SECONDS }),
          ),
        );
        bounds.push(benchVerifyBound(verify, validators[0]!));
        console.log(
          `round ${round + 1}: ${loop.cyclesPerSecond.toFixed(0)} cycles/s (${loop.cycles}, p50 ${
            loop.p50Ms.toFixed(1)
          } ms, ` +
            `p99 ${loop.p99Ms.toFixed(1)} ms, double leases ${loop.doubleLeases}${
              failuresText(loop.failures)
            }; CPU s/s: service ${loop.serviceCpu.toFixed(2)}, validators ${loop.clientCpu.toFixed(2)}) | ` +
            `pg-boss ${bosses.at(-1)!.toFixed(0)} jobs/s | verify bound ${
              bounds.at(-1)!.toFixed(0)
            } cycles/s`,
        );
      }
    } finally {
      await server.shutdown();
      await service.close();
    }
  });
  report(loops, median(bosses), median(bounds));
}

function failuresText(failures: Record<string, number>): string {
  const entries = Object.entries(failures);
  return entries.length === 0 ? "" : `, failures ${JSON.stringify(failures)}`;
}

function report(loops: LoopRound[], boss: number, bound: number): void {
  const cycles = median(loops.map((loop) => loop.cyclesPerSecond));
  const p99 = median(loops.map((loop) => loop.p99Ms));
  const doubles = loops.reduce((sum, loop) => sum + loop.doubleLeases, 0);
  console.log("\n| run | per second | p99 ms | vs pg-boss | vs verify bound |\n|---|---:|---:|---:|---:|");
  console.log(
    `| signed lease + submit (HTTP, PostgreSQL, 32 validators) | ${cycles.toFixed(0)} | ${p99.toFixed(1)} | ${
      (cycles / boss).toFixed(2)
    }× | ${(cycles / bound * 100).toFixed(0)} % |`,
  );
  console.log(`| pg-boss 10 fetch + complete (32 workers) | ${boss.toFixed(0)} | | 1.00× | |`);
  console.log(`| bare verify bound (2 verifications per cycle) | ${bound.toFixed(0)} | | | 100 % |`);
  console.log(
    `double leases: ${doubles}; targets: ≥ 5× pg-boss, ≥ 60 % of the verify bound, 0 double leases`,
  );
  if (doubles > 0) Deno.exitCode = 1;
}

if (import.meta.main) await main();
