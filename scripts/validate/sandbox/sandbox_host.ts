/** What the host check found (`host_check.ts`): everything a sandboxed run needs from the host. */
import type { HostIds } from "./agent_user.ts";
import type { RootEntry } from "./bwrap_args.ts";
import type { CgroupPlaces } from "./cgroup_mounts.ts";

export interface SandboxHost {
  /** bubblewrap's path and version ("0.8.0"). */
  bwrap: string;
  bwrapVersion: string;
  /** The system interpreter: runs the launcher on the host and the agent inside. */
  python: string;
  /** The folder holding that interpreter's `seccomp` module (python3-seccomp). */
  seccompModuleDir: string;
  /** `/usr` and the top-level paths bound or recreated inside. */
  roots: RootEntry[];
  /** The agent user (a validator running as root), or null: runs keep the validator's own uid. */
  user: HostIds | null;
  /** Where run cgroups are made, or null: limits by rlimits and a pinned CPU. */
  cgroups: CgroupPlaces | null;
}

/** `executionMetadata.sandbox` of a sandboxed run. */
export function sandboxName(host: SandboxHost): string {
  return `bubblewrap ${host.bwrapVersion}`;
}
