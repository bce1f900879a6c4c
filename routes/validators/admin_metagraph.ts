import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { type Clock, isoAt } from "../../actors/kernel/mod.ts";
import type { MetagraphView } from "../../actors/validators/mod.ts";
import type { StoredMetagraph, StoredNeuron } from "../../storage/metagraph_store.ts";
import type { AppEnv } from "../http/app_env.ts";
import { defineRoute, jsonResponse, openApiApp } from "../http/openapi.ts";

export interface AdminMetagraphDeps {
  /** This instance's view of the metagraph. */
  view: MetagraphView;
  /** The configured source (`subtensor` or `file`). */
  sourceName: string;
  clock: Clock;
}

/** Rao per TAO (and per alpha): emission is shown in alpha per tempo, as the leaderboard does. */
const RAO_PER_UNIT = 1e9;

const instant = z.string().meta({ description: "ISO 8601 UTC with milliseconds" });

export const MetagraphNeuronSchema = z.object({
  uid: z.number().int(),
  hotkey: z.string().meta({ description: "SS58, prefix 42." }),
  coldkey: z.string().meta({ description: "SS58, prefix 42." }),
  active: z.boolean(),
  validatorPermit: z.boolean(),
  stake: z.string().meta({
    description: "Total stake in rao, a decimal string.",
    example: "312460092414791",
  }),
  emission: z.number().meta({ description: "Alpha per tempo (rao ÷ 1e9)." }),
  incentive: z.number().meta({ description: "0..1 (the chain's u16 ÷ 65535)." }),
  dividends: z.number().meta({ description: "0..1 (the chain's u16 ÷ 65535)." }),
  lastUpdate: z.string().meta({
    description: "Block of the neuron's last weights update, a decimal string.",
  }),
  firstSeenAt: instant.meta({ description: "When a sync first saw this hotkey on this uid." }),
}).meta({ id: "MetagraphNeuron" });

export const AdminMetagraphSchema = z.object({
  netuid: z.number().int(),
  source: z.string().meta({ description: "Where the metagraph is read from: `subtensor` or `file`." }),
  block: z.number().int().nullable().meta({ description: "Block of the latest synced metagraph." }),
  lastSyncAt: instant.nullable().meta({ description: "Time of the last successful sync (null: never)." }),
  status: z.enum(["never_synced", "stale", "fresh"]),
  stale: z.boolean().meta({
    description: "True unless `fresh`: signature routes answer 503 `metagraph_unavailable`.",
  }),
  neuronCount: z.number().int(),
  neurons: z.array(MetagraphNeuronSchema).meta({ description: "Ordered by uid." }),
}).meta({ id: "AdminMetagraph" });

export const getMetagraphRoute = defineRoute({
  method: "get",
  path: "/metagraph",
  tags: ["admin: validators"],
  summary: "Show the metagraph the service believes in",
  description: "The latest synced metagraph of `FGW_NETUID`, its sync time and staleness, and every neuron.",
  access: "admin",
  responses: { 200: jsonResponse(AdminMetagraphSchema, "The metagraph (empty before the first sync).") },
});

/** `GET /admin/v1/metagraph`, mounted at `/admin/v1` behind `adminAuth`. */
export function adminMetagraphRoutes(deps: AdminMetagraphDeps): OpenAPIHono<AppEnv> {
  return openApiApp<AppEnv>().openapi(getMetagraphRoute, async (c) => {
    await deps.view.refresh();
    return c.json(metagraphJson(deps, deps.view.metagraph), 200);
  });
}

function metagraphJson(deps: AdminMetagraphDeps, metagraph: StoredMetagraph | null) {
  const status = deps.view.status(deps.clock());
  return {
    netuid: deps.view.netuid,
    source: deps.sourceName,
    block: metagraph?.block ?? null,
    lastSyncAt: metagraph ? isoAt(metagraph.syncedAtMs) : null,
    status,
    stale: status !== "fresh",
    neuronCount: metagraph?.neurons.length ?? 0,
    neurons: (metagraph?.neurons ?? []).map(neuronJson),
  };
}

function neuronJson(neuron: StoredNeuron) {
  return {
    uid: neuron.uid,
    hotkey: neuron.hotkey,
    coldkey: neuron.coldkey,
    active: neuron.active,
    validatorPermit: neuron.validatorPermit,
    stake: neuron.stakeRao.toString(),
    emission: Number(neuron.emissionRao) / RAO_PER_UNIT,
    incentive: neuron.incentive,
    dividends: neuron.dividends,
    lastUpdate: String(neuron.lastUpdate),
    firstSeenAt: isoAt(neuron.firstSeenAtMs),
  };
}
