import assert from "node:assert/strict";
import type { KeyUsageStore } from "../../storage/key_usage_store.ts";
import type { Storage } from "../../storage/storage.ts";

/** The admin token the access tests configure (FGW_ADMIN_TOKEN). */
export const ADMIN_TOKEN = "test-admin-token-0123456789";
/** Valid SS58 hotkeys (generic prefix 42). */
export const HOTKEY_A = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
export const HOTKEY_B = "5Fpfx4iDtrrY99VGkQnLXASytC2y9Z3o8KUyTtD4w7o5SZcA";

/** Anything that answers HTTP requests by path: `app.request` or a fetch against a live server. */
export type Requester = (path: string, init?: RequestInit) => Promise<Response>;

/** Headers of an admin call with a JSON body. */
export function adminInit(method: string, body?: unknown): RequestInit {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (body === undefined) return { method, headers };
  return { method, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** `Authorization: Bearer <key>` plus any extra headers. */
export function keyInit(apiKey: string, headers: Record<string, string> = {}): RequestInit {
  return { headers: { authorization: `Bearer ${apiKey}`, ...headers } };
}

export interface IssuedKey {
  apiKey: string;
  key: { keyId: string; orgId: string; scopes: string[]; rateLimitRpm: number };
}

/** Issues a key through the admin API and asserts the 201. */
export async function issueKey(
  request: Requester,
  orgId: string,
  terms: Record<string, unknown> = {},
): Promise<IssuedKey> {
  const body = { name: "test key", scopes: ["billing:read"], rateLimitRpm: 60, ...terms };
  const response = await request(`/admin/v1/orgs/${orgId}/keys`, adminInit("POST", body));
  const json = await response.json();
  assert.equal(response.status, 201, JSON.stringify(json));
  return json as IssuedKey;
}

/** Reads the error body of docs/conventions.md and returns its code. */
export async function errorCode(response: Response): Promise<string> {
  const body = await response.json() as { error?: { code?: string }; requestId?: string };
  assert.equal(typeof body.requestId, "string");
  return body.error?.code ?? "<no error code>";
}

/** Creates an organisation through the admin API; returns its id. */
export async function createOrg(request: Requester, name = "Acme"): Promise<string> {
  const response = await request("/admin/v1/orgs", adminInit("POST", { name }));
  const body = await response.json();
  assert.equal(response.status, 201, JSON.stringify(body));
  return body.id as string;
}

/** Tops an organisation up through the admin API. */
export async function addCredits(request: Requester, orgId: string, amountMicro: string, reference: string) {
  const response = await request(
    `/admin/v1/orgs/${orgId}/credits`,
    adminInit("POST", { amountMicro, reference }),
  );
  assert.equal(response.status, 201, await response.text());
}

type CountUse = KeyUsageStore["count"];

/** `storage` whose key-usage store counts through `wrap(realCount)` (everything else as is). */
export function withCountUse(storage: Storage, wrap: (real: CountUse) => CountUse): Storage {
  const real = storage.keyUsage;
  const count = wrap((keyId, use) => real.count(keyId, use));
  return { ...storage, keyUsage: overriding(real, { count }) };
}

/** `real` with some methods replaced; every other method still runs on `real` itself. */
export function overriding<T extends object>(real: T, overrides: Partial<T>): T {
  return new Proxy(real, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
