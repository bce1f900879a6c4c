import assert from "node:assert/strict";
import type { MetagraphSnapshot, MetagraphSource } from "../../actors/validators/mod.ts";
import { addCredits, adminInit, createOrg, issueKey, type Requester } from "./access.ts";
import { runJobOnce } from "./jobs.ts";
import { neuronAt } from "./neurons.ts";
import type { TestService } from "./test_service.ts";

export const SUBMIT_AGENT = "/v1/agents/submit-agent";

/** A valid agent whose code differs with `variant` (so each is a new version). */
export function agentCode(variant: string | number = 0): string {
  return `def agent_main(event):\n    return {"variant": ${JSON.stringify(String(variant))}}\n`;
}

/** A JSON POST to the upload route with extra headers (an API key, signature headers). */
export function uploadInit(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

export interface MinerOrg {
  orgId: string;
  /** An API key of the org with `predictions:write`. */
  apiKey: string;
}

/**
 * An org with `miners` registered (the first as its default unless `noDefault`), credited with
 * `creditMicro` (none when "0"), and a `predictions:write` key pinned to `pinned` if given.
 */
export async function minerOrg(
  request: Requester,
  miners: string[],
  options: { creditMicro?: string; noDefault?: boolean; pinned?: string } = {},
): Promise<MinerOrg> {
  const orgId = await createOrg(request, "Miners Inc");
  for (const [index, hotkey] of miners.entries()) {
    const body = { hotkey, default: index === 0 && !options.noDefault };
    const response = await request(`/admin/v1/orgs/${orgId}/miners`, adminInit("POST", body));
    assert.equal(response.status, 201, await response.text());
  }
  const credit = options.creditMicro ?? "1000000";
  if (credit !== "0") await addCredits(request, orgId, credit, `initial-${orgId}`);
  const terms = {
    scopes: ["predictions:write"],
    ...(options.pinned === undefined ? {} : { pinnedMinerHotkey: options.pinned }),
  };
  const { apiKey } = await issueKey(request, orgId, terms);
  return { orgId, apiKey };
}

/** A metagraph source holding one neuron per hotkey (uids 0, 1, …). */
export function metagraphWith(hotkeys: readonly string[]): MetagraphSource {
  const snapshot: MetagraphSnapshot = {
    netuid: 41,
    block: 6_852_690,
    neurons: hotkeys.map((hotkey, uid) => ({ ...neuronAt(uid), hotkey })),
  };
  return { name: "test", fetch: () => Promise.resolve(snapshot) };
}

/** Runs the service's metagraph sync once, at the service's clock. */
export async function syncMetagraph(service: TestService): Promise<void> {
  await runJobOnce(service.metagraph.sync, { leases: service.storage.jobLeases, nowMs: service.clock.now() });
}
