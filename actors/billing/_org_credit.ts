/**
 * The OrgActor's credit (top-up): idempotent by reference, one conditional commit. Private to
 * actors/billing.
 */
import { ServiceError } from "../kernel/mod.ts";
import { conditionalWrite, LOST } from "../runtime/mod.ts";
import { balanceOf, overMaximum, requireAmount } from "./org_account.ts";
import type { CreditReply } from "./org_messages.ts";
import type { OrgMemory } from "./_org_memory.ts";
import {
  type BillingStore,
  type LedgerEntry,
  MAX_MICRO,
  type OrgAccount,
} from "../../storage/billing_store.ts";

/**
 * Commit attempts of a credit (`conditionalWrite`): a reference taken elsewhere in between needs
 * another look.
 */
const COMMIT_ATTEMPTS = 4;

export interface CreditDeps {
  orgId: string;
  billing: BillingStore;
  clock: () => number;
  memory: OrgMemory;
  /** The account as stored now. */
  account(): Promise<OrgAccount>;
}

/** Credits `amountMicro` under `reference`; a repeat answers the first credit (409 with another amount). */
export async function creditOrg(
  deps: CreditDeps,
  amountMicro: bigint,
  reference: string,
): Promise<CreditReply> {
  requireAmount(amountMicro, { field: "amountMicro", min: 1n });
  const { billing, orgId } = deps;
  return await conditionalWrite({
    what: `credit ${orgId}`,
    attempts: COMMIT_ATTEMPTS,
    // An earlier credit with this reference, or a concurrent one (another instance) that won the race.
    load: () => billing.findCredit(orgId, reference),
    apply: async (earlier) => {
      if (earlier) return await repeatedCredit(deps, earlier, amountMicro);
      const fresh = await creditNew(deps, amountMicro, reference);
      if (fresh) return fresh;
      // Refused by the store: the reference was taken meanwhile, or the balance would pass 2^63-1
      // (checked in the commit, so concurrent credits on several instances cannot overflow).
      const taken = await billing.findCredit(orgId, reference);
      if (!taken && (await deps.account()).balanceMicro > MAX_MICRO - amountMicro) throw overMaximum();
      return LOST;
    },
  });
}

async function repeatedCredit(
  deps: CreditDeps,
  earlier: LedgerEntry,
  amountMicro: bigint,
): Promise<CreditReply> {
  if (earlier.amountMicro !== amountMicro) {
    throw new ServiceError("conflict", "Reference was already credited with another amount", {
      details: { reference: earlier.reference, amountMicro: earlier.amountMicro.toString() },
    });
  }
  return { entry: earlier, duplicate: true, balance: balanceOf(await deps.account()) };
}

/** Commits a credit with an unused reference; null when the store refused it. */
async function creditNew(
  deps: CreditDeps,
  amountMicro: bigint,
  reference: string,
): Promise<CreditReply | null> {
  const atMs = deps.clock();
  const next = await deps.billing.commit(deps.orgId, {
    atMs,
    entry: { kind: "credit", amountMicro, reference },
  });
  if (!next) return null;
  deps.memory.account(next);
  const entry: LedgerEntry = {
    seq: next.version,
    atMs,
    kind: "credit",
    amountMicro,
    balanceAfterMicro: next.balanceMicro,
    reference,
    holdId: null,
  };
  return { entry, duplicate: false, balance: balanceOf(next) };
}
