/**
 * Billing benchmark: reserve+settle pairs per second on ONE organisation with 64 concurrent
 * callers, on the PostgreSQL adapter (DATABASE_URL), through the OrgActor as the gateway uses it.
 * Also runs the same load split over two actor systems with their own connection pools (two
 * service instances), where the account version decides between them. It creates a scratch
 * database on the DATABASE_URL server and drops it afterwards (the ledger is append-only, so its
 * rows could not be cleaned up otherwise); each run uses a new org there and checks afterwards that
 * balance == Σ ledger and no hold is left.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test deno task bench:billing [seconds]
 */
import { withScratchDatabase } from "./world/scratch_database.ts";
import { systemClock } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { ledgerSum } from "../../storage/ledger_sum.ts";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import type { Storage } from "../../storage/storage.ts";

const CALLERS = 64;
const HOLD_MICRO = 2_000n;
const COST_MICRO = 1_500n;

interface RunResult {
  label: string;
  pairs: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

function asker(storage: Storage): AskOrg {
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: systemClock,
    holdTtlMs: 60_000,
  });
  const actors = new ActorSystem({ clock: systemClock });
  return orgAsker(actors, actors.register(kind));
}

/** `CALLERS` loops of reserve+settle on `orgId`, spread over `asks`, for `seconds`. */
async function run(label: string, asks: AskOrg[], orgId: string, seconds: number): Promise<RunResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1_000;
  const caller = async (ask: AskOrg) => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const { holdId } = await ask(orgId, { type: "reserve", amountMicro: HOLD_MICRO });
      await ask(orgId, {
        type: "settle",
        holdId,
        costMicro: COST_MICRO,
        usage: { description: "bench/pair" },
      });
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CALLERS }, (_, i) => caller(asks[i % asks.length]!)));
  const elapsed = (performance.now() - started) / 1_000;
  const sorted = latencies.toSorted((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { label, pairs: latencies.length, seconds: elapsed, p50Ms: at(0.5), p99Ms: at(0.99) };
}

async function newOrg(ask: AskOrg): Promise<string> {
  const orgId = `bench_${crypto.randomUUID().replaceAll("-", "")}`;
  await ask(orgId, { type: "create", name: "billing benchmark" });
  await ask(orgId, { type: "credit", amountMicro: 10n ** 15n, reference: "bench" });
  return orgId;
}

/** Checks the invariants after a run: no hold left, and the balance equals the sum of its ledger. */
async function verify(storage: Storage, orgId: string): Promise<string> {
  const account = await storage.billing.getAccount(orgId);
  const sum = await ledgerSum(storage.billing, orgId);
  if (account === null || account.heldMicro !== 0n || account.balanceMicro !== sum) {
    throw new Error(`Invariant broken for ${orgId}: balance ${account?.balanceMicro}, ledger Σ ${sum}`);
  }
  return `balance ${account.balanceMicro} == Σ ledger, held 0`;
}

function print(result: RunResult, check: string): void {
  const rate = (result.pairs / result.seconds).toFixed(0);
  console.log(
    `| ${result.label} | ${result.pairs} | ${rate} | ${result.p50Ms.toFixed(2)} | ${
      result.p99Ms.toFixed(2)
    } | ${check} |`,
  );
}

async function measure(url: string, seconds: number): Promise<void> {
  const first = await openPgStorage(url, { maxConnections: 10 });
  const second = await openPgStorage(url, { maxConnections: 10 });
  try {
    console.log(
      `\nBilling: reserve+settle pairs on one org, ${CALLERS} concurrent callers, ${seconds} s per run`,
    );
    console.log("| run | pairs | pairs/s | p50 ms | p99 ms | check |\n|---|---:|---:|---:|---:|---|");
    const single = [asker(first)];
    await run("warm-up", single, await newOrg(single[0]!), 1);
    const oneOrg = await newOrg(single[0]!);
    print(await run("1 instance", single, oneOrg, seconds), await verify(first, oneOrg));
    const pair = [asker(first), asker(second)];
    const twoOrg = await newOrg(pair[0]!);
    print(await run("2 instances, one Postgres", pair, twoOrg, seconds), await verify(first, twoOrg));
  } finally {
    await first.close();
    await second.close();
  }
}

async function main(): Promise<void> {
  const url = Deno.env.get("DATABASE_URL");
  if (!url) {
    throw new TypeError("Set DATABASE_URL to a PostgreSQL server: the billing benchmark runs on Postgres");
  }
  const seconds = Number(Deno.args[0] ?? 10);
  await withScratchDatabase(url, (scratchUrl) => measure(scratchUrl, seconds));
}

if (import.meta.main) await main();
