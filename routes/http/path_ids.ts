import { isSs58Address, ServiceError } from "../../actors/kernel/mod.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import { pathId } from "./openapi.ts";

/** Every org id this service makes (`org_<32 hex>`) fits; so do the short ids tests and imports use. */
export const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `{orgId}` of an admin path (organisations and their keys): one that cannot name an org answers
 * 404 before any actor is activated or storage key built (a NUL or a 3,000-character id never
 * reaches storage).
 */
export const orgIdParam = pathId((value) => ORG_ID.test(value), "Organisation not found", {
  description: "The organisation's id (`org_…`).",
  pattern: ORG_ID.source,
});

/**
 * The `orgId` of a path when it can name an org; else 404 at once, so that no actor is
 * activated and no storage key is built for it (a NUL or a 3,000-character id never reaches
 * storage). Declared routes check it with their `orgIdParam` already.
 */
function orgIdOf(param: string): string {
  if (!ORG_ID.test(param)) throw new ServiceError("not_found", "Organisation not found");
  return param;
}

/** The `orgId` of a path when that org exists; else 404. The one existence check of the admin API. */
export async function requireOrg(orgs: Pick<OrgStore, "get">, param: string): Promise<string> {
  const orgId = orgIdOf(param);
  if (!(await orgs.get(orgId))) throw new ServiceError("not_found", `Organisation not found: ${orgId}`);
  return orgId;
}

/**
 * Every event id the catalog makes (`<source>-<sourceMarketId>`, e.g. `polymarket-516710`) fits;
 * anything else names no event.
 */
export const EVENT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/** `{hotkey}` of a miner path: a value that is not an SS58 address names no miner (404). */
export const minerHotkeyParam = pathId(isSs58Address, "No such miner", {
  description: "The miner's hotkey (SS58).",
});
