/**
 * The plan `launcher.py` carries out for one run (as its arguments, `launcherArgs`): the cgroups
 * to join, the resource limits, the user to become, the files to copy into the sandbox and
 * bubblewrap's arguments. Without cgroups, memory is capped by RLIMIT_AS and the run is pinned to
 * one CPU.
 */
import type { HostIds } from "./agent_user.ts";
import { bwrapArgs } from "./bwrap_args.ts";
import { INSIDE, RUN_LIMITS } from "./run_limits.ts";
import type { SandboxHost } from "./sandbox_host.ts";

export interface LauncherPlan {
  bwrap: string;
  seccompModuleDir: string;
  cgroupProcs: string[];
  nice: number;
  rlimits: Record<string, number>;
  /** Which allowed CPU to pin the run to (its index, modulo their count), or null. */
  cpuSlot: number | null;
  user: HostIds | null;
  /** [host file, path inside], copied read-only. */
  copies: [string, string][];
  args: string[];
}

export interface PlanInputs {
  host: SandboxHost;
  /** The run's cgroup.procs files (empty without cgroups). */
  cgroupProcs: string[];
  /** A number that differs between concurrent runs (spreads pinned runs over the CPUs). */
  slot: number;
  copies: [string, string][];
  relaySocket?: string;
}

export function launcherPlan({ host, cgroupProcs, slot, copies, relaySocket }: PlanInputs): LauncherPlan {
  const limitedByCgroup = cgroupProcs.length > 0;
  const rlimits: Record<string, number> = {
    CORE: 0,
    FSIZE: RUN_LIMITS.writableBytes,
    NOFILE: RUN_LIMITS.openFiles,
    ...(limitedByCgroup ? {} : { AS: RUN_LIMITS.memoryBytes }),
  };
  const layout = {
    roots: host.roots,
    python: host.python,
    withLib: copies.some(([, inside]) => inside.startsWith(`${INSIDE.lib}/`)),
    ...(relaySocket === undefined ? {} : { relaySocket }),
  };
  return {
    bwrap: host.bwrap,
    seccompModuleDir: host.seccompModuleDir,
    cgroupProcs,
    nice: RUN_LIMITS.nice,
    rlimits,
    cpuSlot: limitedByCgroup && host.cgroups?.cpu ? null : slot,
    user: host.user,
    copies,
    args: bwrapArgs(layout),
  };
}

/** The plan as `launcher.py`'s arguments. */
export function launcherArgs(plan: LauncherPlan): string[] {
  return [
    ...plan.cgroupProcs.flatMap((procs) => ["--cgroup", procs]),
    ...Object.entries(plan.rlimits).flatMap(([name, value]) => ["--rlimit", name, String(value)]),
    ...["--nice", String(plan.nice)],
    ...(plan.cpuSlot === null ? [] : ["--cpu-slot", String(plan.cpuSlot)]),
    ...(plan.user === null ? [] : ["--user", String(plan.user.uid), String(plan.user.gid)]),
    ...["--seccomp-module", plan.seccompModuleDir],
    ...plan.copies.flatMap(([host, inside]) => ["--copy", host, inside]),
    ...["--bwrap", plan.bwrap, "--", ...plan.args],
  ];
}
