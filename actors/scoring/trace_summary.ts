/**
 * The sanitized summary of a stored reasoning trace that the scored-predictions feed may show
 * (`includeTraceSummary=1`): sizes, a step count and tool names, never the trace's content.
 */

export interface TraceSummary {
  /** The trace's `schemaVersion` when it is a short string, else null. */
  schemaVersion: string | null;
  /** UTF-8 bytes of the stored trace's JSON. */
  bytes: number;
  /** How many steps `trace.steps` holds (0 when it is not an array). */
  steps: number;
  /**
   * Distinct tool names the steps give (`tool`, `toolName` or `tool_name`), sorted, at most
   * `MAX_TOOL_NAMES`; only names of 1..64 characters from `[A-Za-z0-9_.:-]` are shown, so no
   * free text (a prompt, an output, a key) can leak through one.
   */
  toolNames: string[];
}

export const MAX_TOOL_NAMES = 32;
const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
const SCHEMA_VERSION = /^[A-Za-z0-9_.-]{1,16}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toolNameOf(step: unknown): string | null {
  if (!isRecord(step)) return null;
  for (const field of ["tool", "toolName", "tool_name"]) {
    const name = step[field];
    if (typeof name === "string" && TOOL_NAME.test(name)) return name;
  }
  return null;
}

/** The summary of `stored` (`{schemaVersion, trace}` as submitted; anything else summarises as empty). */
export function traceSummaryOf(stored: unknown): TraceSummary {
  const bytes = new TextEncoder().encode(JSON.stringify(stored ?? null)).length;
  const version = isRecord(stored) ? stored["schemaVersion"] : undefined;
  const trace = isRecord(stored) ? stored["trace"] : undefined;
  const steps = isRecord(trace) && Array.isArray(trace["steps"]) ? trace["steps"] : [];
  const names = new Set(steps.map(toolNameOf).filter((name): name is string => name !== null));
  return {
    schemaVersion: typeof version === "string" && SCHEMA_VERSION.test(version) ? version : null,
    bytes,
    steps: steps.length,
    toolNames: [...names].toSorted().slice(0, MAX_TOOL_NAMES),
  };
}
