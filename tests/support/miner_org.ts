import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import type { Storage } from "../../storage/storage.ts";

/**
 * A miner's organisation `orgId` behind an OrgActor on `storage`, created and credited
 * `creditMicro`, on a manual clock starting at `nowMs` (holds live a minute).
 */
export async function creditedMinerOrg(
  storage: Storage,
  at: { orgId: string; nowMs: number; creditMicro: bigint },
): Promise<{ ask: AskOrg; clock: ManualClock }> {
  const clock = new ManualClock(at.nowMs);
  const system = new ActorSystem({ clock: clock.now });
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: clock.now,
    holdTtlMs: 60_000,
  });
  const ask = orgAsker(system, system.register(kind));
  await ask(at.orgId, { type: "create", name: "Miners" });
  await ask(at.orgId, { type: "credit", amountMicro: at.creditMicro, reference: "initial" });
  return { ask, clock };
}
