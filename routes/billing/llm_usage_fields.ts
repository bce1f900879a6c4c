import { microString } from "./admin_org_views.ts";
import { z } from "zod";

/**
 * The LLM calls of a prediction's lease, as the service's usage records show them when read (a call
 * settled after the submission counts; never the validator's report): docs/scoring.md.
 */
export const llmUsageFields = {
  llmCalls: z.number().int().meta({
    description: "Charged LLM calls (validator completions) made under the prediction's lease.",
  }),
  llmCostMicro: microString("What those calls were charged."),
};
