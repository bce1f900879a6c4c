/**
 * The demo's accounts, made as an operator and the miners would (docs/getting_started.md): through
 * the admin API, an organisation with credits per miner, the miner registered as its default, and
 * its agent uploaded signed as the miner (docs/agents.md, "Uploading"); and a customer
 * organisation with credits and a key with the read scopes.
 */
import { z } from "zod";
import { signRequest } from "../../actors/validators/mod.ts";
import { agentCode, type DemoMiner } from "./demo_miners.ts";

/** Credits each demo organisation gets: 25 credits (the LLM miner's calls are paid from it). */
const CREDIT_MICRO = "25000000";
/** The customer key's scopes: every read (docs/api_keys.md). */
export const CUSTOMER_SCOPES = ["predictions:read", "history:read", "billing:read"] as const;

/** Where the admin calls go. */
export interface AdminAccess {
  base: string;
  adminToken: string;
}

/** What the demo made: the customer's organisation, its key and its owner's invitation (shown only once, here). */
export interface DemoAccounts {
  customerOrgId: string;
  apiKey: string;
  /** The single-use dashboard link that makes its holder the customer organisation's owner. */
  ownerInvitation: string;
}

/** Makes every account and uploads every miner's agent; throws naming the call that failed. */
export async function setUpAccounts(
  access: AdminAccess,
  options: { miners: readonly DemoMiner[]; seed: number },
): Promise<DemoAccounts> {
  for (const miner of options.miners) {
    const orgId = await fundedOrg(access, `Demo miner uid ${miner.uid} (${miner.agent})`);
    await admin(access, `/orgs/${orgId}/miners`, { hotkey: miner.signer.hotkey, default: true });
    await uploadAgent(access.base, miner, await agentCode(miner, options.seed));
  }
  const customerOrgId = await fundedOrg(access, "Demo customer");
  const issued = await admin(access, `/orgs/${customerOrgId}/keys`, {
    name: "demo reader",
    scopes: CUSTOMER_SCOPES,
    rateLimitRpm: 600,
  });
  const invited = await admin(access, `/orgs/${customerOrgId}/invitations`, { role: "owner" });
  return {
    customerOrgId,
    apiKey: z.object({ apiKey: z.string() }).parse(issued).apiKey,
    ownerInvitation: z.object({ link: z.string() }).parse(invited).link,
  };
}

async function fundedOrg(access: AdminAccess, name: string): Promise<string> {
  const orgId = z.object({ id: z.string() }).parse(await admin(access, "/orgs", { name })).id;
  await admin(access, `/orgs/${orgId}/credits`, { amountMicro: CREDIT_MICRO, reference: "demo" });
  return orgId;
}

/** Uploads `code` for `miner`, signed with its hotkey. */
async function uploadAgent(base: string, miner: DemoMiner, code: string): Promise<void> {
  const url = `${base}/v1/agents/submit-agent`;
  const body = JSON.stringify({ code, name: `demo: ${miner.agent}` });
  const signed = signRequest(miner.signer, { method: "POST", url, body }, {
    role: "miner",
    nowMs: Date.now(),
  });
  const response = await fetch(url, {
    method: "POST",
    headers: { ...signed, "content-type": "application/json" },
    body,
  });
  await answer(response, `upload of uid ${miner.uid}'s agent`);
}

/** A POST to the admin API; its answer's JSON. */
async function admin(access: AdminAccess, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${access.base}/admin/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${access.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return await answer(response, `POST /admin/v1${path}`);
}

async function answer(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`Cannot set up the demo: ${what} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}
