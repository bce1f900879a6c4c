/**
 * The validator's start-up check of its host (docs/agents.md, "What a validator host needs"):
 * bubblewrap, a system interpreter with libseccomp's binding, user namespaces, the agent user
 * when running as root, cgroups when it can make them; then one trial run through the whole
 * sandbox. It says exactly what is missing and how to fix it; the validator never falls back to
 * running agents unsandboxed on its own.
 */
import { runAgent } from "../agent_run.ts";
import { ensureAgentUser, type HostIds } from "./agent_user.ts";
import { type CgroupPlaces, cgroupPlaces } from "./cgroup_mounts.ts";
import { FIXES, type HostProblem } from "./host_fixes.ts";
import {
  appArmorRestricts,
  bwrapVersion,
  findBwrap,
  pythonFacts,
  rootEntries,
  userNamespaceProblems,
  versionAtLeast,
} from "./host_probes.ts";
import { prepareCgroups } from "./run_cgroup.ts";
import type { SandboxHost } from "./sandbox_host.ts";
import { sandboxStarter } from "./sandbox_starter.ts";

export type { HostProblem } from "./host_fixes.ts";

export type HostCheck =
  | { ok: true; host: SandboxHost; notes: string[] }
  | { ok: false; problems: HostProblem[] };

export interface HostCheckOptions {
  /** The interpreter (`--python`). */
  python: string;
  /** Where to look for bwrap (the PATH value). */
  path: string;
}

const LEAST_BWRAP = "0.8.0";
/** A trial run's limit: generous, since a loaded host starts processes slowly. */
const TRIAL_TIMEOUT_MS = 60_000;
const TRIAL_AGENT = "import os\ndef agent_main(event):\n    return {'uid': os.getuid()}\n";
const RLIMIT_NOTE = "no cgroup the validator can write: a run's memory is capped by RLIMIT_AS (which " +
  "counts virtual memory), its processes by RLIMIT_NPROC in its user namespace, its CPU by pinning " +
  "it to one CPU; run the validator as root for cgroup limits";

/** Checks the host (see the module comment). */
export async function checkSandboxHost(options: HostCheckOptions): Promise<HostCheck> {
  const problems: HostProblem[] = [];
  const bwrap = await findBwrap(options.path);
  const version = bwrap === null ? null : await bwrapVersion(bwrap);
  if (bwrap === null) problems.push(FIXES.noBwrap());
  else if (version === null || !versionAtLeast(version, LEAST_BWRAP)) {
    problems.push(FIXES.oldBwrap(version ?? "?"));
  }
  const roots = await rootEntries();
  const python = await pythonFacts(options.python, roots);
  if (Array.isArray(python)) problems.push(...python);
  problems.push(...await userNamespaceProblems());
  const user = await agentUser(problems);
  if (bwrap === null || version === null || Array.isArray(python) || problems.length > 0) {
    return { ok: false, problems };
  }
  const cgroups = await usableCgroups();
  const host: SandboxHost = {
    bwrap,
    bwrapVersion: version,
    python: options.python,
    seccompModuleDir: python.seccompModuleDir,
    roots,
    user,
    cgroups,
  };
  const trial = await trialRun(host);
  if (trial !== null) return { ok: false, problems: [trial] };
  return { ok: true, host, notes: cgroups === null ? [RLIMIT_NOTE] : [] };
}

/** The agent user when the validator is root (made when missing), else null. */
async function agentUser(problems: HostProblem[]): Promise<HostIds | null> {
  if (Deno.uid() !== 0) return null;
  try {
    return await ensureAgentUser();
  } catch (error) {
    problems.push(FIXES.noAgentUser(error instanceof Error ? error.message : String(error)));
    return null;
  }
}

async function usableCgroups(): Promise<CgroupPlaces | null> {
  const mountinfo = await Deno.readTextFile("/proc/self/mountinfo").catch(() => "");
  const own = await Deno.readTextFile("/proc/self/cgroup").catch(() => "");
  const places = cgroupPlaces(mountinfo, own);
  return places === null ? null : await prepareCgroups(places).catch(() => null);
}

/** A problem when one run through the whole sandbox does not give the agent's result, else null. */
async function trialRun(host: SandboxHost): Promise<HostProblem | null> {
  const outcome = await runAgent(TRIAL_AGENT, {}, {
    starter: sandboxStarter(host),
    timeoutMs: TRIAL_TIMEOUT_MS,
  })
    .catch((error: unknown) => error instanceof Error ? error : new Error(String(error)));
  if (!(outcome instanceof Error)) {
    if (outcome.ok) return null;
    return FIXES.trialFailed(`the trial agent failed: ${outcome.error.type}: ${outcome.error.message}`);
  }
  const namespaces = /namespace|uid map|Operation not permitted|Permission denied/i.test(outcome.message);
  if (namespaces && await appArmorRestricts()) return FIXES.appArmor();
  return FIXES.trialFailed(outcome.message);
}
