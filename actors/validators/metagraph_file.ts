/**
 * The metagraph file (`FGW_METAGRAPH_FILE`, docs/validators.md "Metagraph file"): the decoded form of
 * `NeuronInfoLite`, numbers scaled as the Python SDK scales them, integers that may exceed 2^53 as decimal
 * strings.
 */
import { z } from "zod";
import { isSs58Address } from "../kernel/mod.ts";
import { assertDistinctNeurons, type MetagraphSnapshot, type Neuron } from "./neuron.ts";

const ss58 = z.string().refine(isSs58Address, "Expected an SS58 address with network prefix 42");
/** Rao: a decimal string (or a JSON integer up to 2^53), 0..2^64−1. */
const rao = z.union([
  z.string().regex(/^(0|[1-9][0-9]{0,19})$/),
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
])
  .transform((value) => BigInt(value))
  .refine((value) => value < 1n << 64n, "Expected at most 2^64 − 1");
const fraction = z.number().min(0).max(1);
const block = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const neuronSchema = z.object({
  uid: z.number().int().min(0).max(65_535),
  hotkey: ss58,
  coldkey: ss58,
  active: z.boolean(),
  validatorPermit: z.boolean(),
  stakeRao: rao,
  emissionRao: rao,
  incentive: fraction,
  consensus: fraction,
  trust: fraction,
  validatorTrust: fraction,
  dividends: fraction,
  lastUpdate: block,
}) satisfies z.ZodType<Neuron, unknown>;

/** The whole file; neurons with a repeated uid or hotkey are refused. */
export const metagraphFileSchema = z.object({
  netuid: z.number().int().min(0).max(65_535),
  block,
  neurons: z.array(neuronSchema),
}).superRefine((file, context) => {
  try {
    assertDistinctNeurons(file.neurons);
  } catch (error) {
    context.addIssue({ code: "custom", path: ["neurons"], message: (error as Error).message });
  }
}) satisfies z.ZodType<MetagraphSnapshot, unknown>;

/**
 * Parses the file's JSON text into a snapshot. Throws a TypeError naming the first problems
 * (path and message) when it is not JSON or not the shape above.
 */
export function parseMetagraphFile(text: string): MetagraphSnapshot {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`Invalid metagraph file: not JSON (${(error as Error).message})`);
  }
  const parsed = metagraphFileSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((issue) =>
    `${issue.path.join(".") || "(root)"}: ${issue.message}`
  );
  throw new TypeError(`Invalid metagraph file: ${problems.join("; ")}`);
}

/** A snapshot in the file's shape (rao as decimal strings): what the demo file and tests write. */
export function metagraphFileOf(snapshot: MetagraphSnapshot): Record<string, unknown> {
  return {
    netuid: snapshot.netuid,
    block: snapshot.block,
    neurons: snapshot.neurons.map((n) => ({
      uid: n.uid,
      hotkey: n.hotkey,
      coldkey: n.coldkey,
      active: n.active,
      validatorPermit: n.validatorPermit,
      stakeRao: n.stakeRao.toString(),
      emissionRao: n.emissionRao.toString(),
      incentive: n.incentive,
      consensus: n.consensus,
      trust: n.trust,
      validatorTrust: n.validatorTrust,
      dividends: n.dividends,
      lastUpdate: n.lastUpdate,
    })),
  };
}
