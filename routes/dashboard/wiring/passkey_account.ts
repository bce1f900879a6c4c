import type { Context } from "hono";
import type { MemberStore } from "../../../storage/member_store.ts";
import { type AccountOf, jsonBodyCopy } from "../sign_in_limits.ts";

/**
 * The account a passkey sign-in answer names, read before it is verified: the member of the
 * credential id it carries (`response.id`); null when the body is not JSON, names no credential
 * or an unknown one (the endpoint answers those itself; the per-address limit counts them).
 */
export function passkeyAccountOf(members: Pick<MemberStore, "credential">): AccountOf {
  return async (c: Context) => {
    const body = await jsonBodyCopy(c);
    const id = (body as { response?: { id?: unknown } } | null)?.response?.id;
    if (typeof id !== "string" || id.length === 0 || id.length > 1024) return null;
    const stored = await members.credential(id);
    return stored === null ? null : `member:${stored.memberId}`;
  };
}
