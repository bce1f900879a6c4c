import type { Context } from "hono";
import type { MemberStore } from "../../../storage/member_store.ts";
import { isJsonContentType } from "../../middleware/json_body.ts";
import type { AccountOf } from "../sign_in_limits.ts";

/**
 * The account a passkey sign-in answer names, read before it is verified: the member of the
 * credential id it carries (`response.id`); null when the body is not JSON, names no credential
 * or an unknown one (the endpoint answers those itself; the per-address limit counts them).
 * It reads a copy of the body (the endpoint's gate reads the body itself); the dashboard's
 * middleware has capped its size before.
 */
export function passkeyAccountOf(members: Pick<MemberStore, "credential">): AccountOf {
  return async (c: Context) => {
    if (!isJsonContentType(c.req.header("content-type") ?? "")) return null;
    const body: unknown = await c.req.raw.clone().text().then(JSON.parse).catch(() => null);
    const id = (body as { response?: { id?: unknown } } | null)?.response?.id;
    if (typeof id !== "string" || id.length === 0 || id.length > 1024) return null;
    const stored = await members.credential(id);
    return stored === null ? null : `member:${stored.memberId}`;
  };
}
