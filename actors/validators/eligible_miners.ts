import type { AgentStore } from "../../storage/agent_store.ts";
import type { StoredMetagraph } from "../../storage/metagraph_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";

/** A miner that gets assignments: registered to an org, holding a uid, with an agent. */
export interface EligibleMiner {
  hotkey: string;
  uid: number;
  agentVersionId: string;
  agentUploadedAtMs: number;
}

/** Where eligibility is looked up. */
export interface EligibilitySources {
  orgs: Pick<OrgStore, "minerRegistration">;
  agents: Pick<AgentStore, "minerState">;
}

/** Storage reads in flight at once while finding eligible miners. */
const LOOKUPS_IN_FLIGHT = 16;

/**
 * The metagraph's neurons registered to an organisation and holding an agent version, each with
 * its latest version (docs/assignments.md "Which assignments exist"), by uid.
 */
export async function eligibleMiners(
  metagraph: StoredMetagraph,
  { orgs, agents }: EligibilitySources,
  signal?: AbortSignal,
): Promise<EligibleMiner[]> {
  const eligible: EligibleMiner[] = [];
  const neurons = [...metagraph.neurons];
  const worker = async () => {
    for (let neuron = neurons.shift(); neuron; neuron = neurons.shift()) {
      signal?.throwIfAborted();
      if (!(await orgs.minerRegistration(neuron.hotkey))) continue;
      const state = await agents.minerState(neuron.hotkey);
      if (!state) continue;
      eligible.push({
        hotkey: neuron.hotkey,
        uid: neuron.uid,
        agentVersionId: state.currentVersionId,
        agentUploadedAtMs: state.lastUploadAtMs,
      });
    }
  };
  await Promise.all(Array.from({ length: LOOKUPS_IN_FLIGHT }, worker));
  return eligible.toSorted((a, b) => a.uid - b.uid);
}
