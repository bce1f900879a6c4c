/**
 * A world for billed-completion tests: an org on a real OrgActor over Deno KV, the fake OpenAI
 * server behind the real adapter, and a `CompletionDesk` that bills the org as the routes' does.
 */
import assert from "node:assert/strict";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import {
  type ChargeBasis,
  CompletionDesk,
  OpenAiAdapter,
  type Payer,
  type ProviderAdapter,
  ProviderCatalog,
  type ResolvedModel,
} from "../../actors/gateway/mod.ts";
import { type LogLine, ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { FakeOpenAi, type FakeOpenAiOptions } from "../support/fake_openai.ts";
import { ledgerSum } from "../support/ledger.ts";
import { fakeProvider, recordedHttp } from "./provider_fixtures.ts";

export const ORG = "org_gateway";
export const MESSAGES = [{ role: "user" as const, content: "Will it rain?" }]; // 13 bytes
export const REQUEST = { model: "gpt-test", messages: MESSAGES, maxTokens: 64 };
/** `REQUEST` as a route gives it to the desk: to the fake OpenAI provider. */
export const CALL = { provider: "fake-openai", ...REQUEST };
/**
 * Prices 1,000,000 / 2,000,000 micro per MTok, markup 500 bps. The bound: 128 + 16 + 13 = 157
 * prompt tokens and 64 completion tokens → 157 + 128 = 285, markup 14.25 → 15: a hold of 300.
 */
export const HOLD = 300n;

export interface World {
  storage: Storage;
  ask: AskOrg;
  clock: ManualClock;
  logs: LogLine[];
  fake: FakeOpenAi;
  catalog: ProviderCatalog;
  resolved: ResolvedModel;
  adapter: ProviderAdapter;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A world whose org holds `balanceMicro`, its holds expiring after `holdTtlMs` (default 10 minutes). */
export async function world(
  balanceMicro: bigint,
  fakeOptions: FakeOpenAiOptions = {},
  options: { holdTtlMs?: number } = {},
): Promise<World> {
  const dir = await Deno.makeTempDir({ prefix: "fgw_gateway_" });
  const storage = await openKvStorage(`${dir}/store.sqlite`);
  const clock = new ManualClock();
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: clock.now,
    holdTtlMs: options.holdTtlMs ?? 600_000,
  });
  const system = new ActorSystem({ clock: clock.now });
  const ask = orgAsker(system, system.register(kind));
  await ask(ORG, { type: "create", name: "Acme" });
  if (balanceMicro > 0n) await ask(ORG, { type: "credit", amountMicro: balanceMicro, reference: "initial" });
  const fake = new FakeOpenAi(fakeOptions);
  // Calls that succeed must be answered within it: seconds, for a busy machine.
  const provider = fakeProvider("openai", fake.baseUrl, { markupBps: 500, timeoutMs: 2_000 });
  const catalog = new ProviderCatalog([provider]);
  const resolved = catalog.resolve(provider.id, "gpt-test");
  const adapter = new OpenAiAdapter(provider, recordedHttp());
  const logs: LogLine[] = [];
  return {
    storage,
    ask,
    clock,
    logs,
    fake,
    catalog,
    resolved,
    adapter,
    async [Symbol.asyncDispose]() {
      await fake.close();
      await storage.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** What a test may put in place of the world's own parts of a desk. */
export interface DeskOverrides {
  catalog?: ProviderCatalog;
  /** The adapter of every provider. */
  adapter?: ProviderAdapter;
  /** Asks the world's OrgActors (in front of `w.ask`). */
  askOrg?: AskOrg;
  onCharge?: (provider: string, basis: ChargeBasis) => void;
}

/** A desk billing the world's org through its OrgActors, its log lines kept in `w.logs`. */
export function deskOf(w: World, overrides: DeskOverrides = {}): CompletionDesk {
  const adapter = overrides.adapter ?? w.adapter;
  return new CompletionDesk({
    catalog: overrides.catalog ?? w.catalog,
    adapters: { get: () => adapter },
    askOrg: overrides.askOrg ?? w.ask,
    clock: w.clock.now,
    log: (line) => w.logs.push(line),
    ...(overrides.onCharge ? { onCharge: overrides.onCharge } : {}),
  });
}

/** The world's org paying for the request `requestId` of the key `key_1`. */
export function payer(requestId: string): Payer {
  return { orgId: ORG, requestId, keyId: "key_1" };
}

/** One call as the completion route makes it: the hold id from the request id, usage written with the settle. */
export function billedCall(
  w: World,
  requestId: string,
  overrides: { adapter?: ProviderAdapter; maxTokens?: number } = {},
) {
  const desk = deskOf(w, overrides.adapter ? { adapter: overrides.adapter } : {});
  return desk.complete({ ...CALL, maxTokens: overrides.maxTokens ?? 64 }, payer(requestId));
}

/** Balance, holds and the ledger agree, and show `balanceMicro` with nothing held. */
export async function assertAccount(w: World, balanceMicro: bigint): Promise<void> {
  const account = await w.storage.billing.getAccount(ORG);
  assert.equal(account?.balanceMicro, balanceMicro);
  assert.equal(account?.heldMicro, 0n);
  assert.deepEqual(await w.storage.billing.listHolds(ORG), []);
  assert.equal(await ledgerSum(w.storage.billing, ORG), balanceMicro);
}

export function code(expected: string) {
  return (error: unknown) => error instanceof ServiceError && error.code === expected;
}
