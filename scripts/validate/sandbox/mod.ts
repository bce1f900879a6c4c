/**
 * The agent sandbox of `deno task validate` (docs/agents.md, "Running agents safely"): the host
 * check, the starter of sandboxed runs, the limits every run gets, and the self-test.
 */
export { AGENT_USER } from "./agent_user.ts";
export { checkSandboxHost, type HostCheck, type HostProblem } from "./host_check.ts";
export { releaseCgroups } from "./run_cgroup.ts";
export { makeRelaySocketDir } from "./relay_socket_dir.ts";
export { INSIDE, RUN_LIMITS } from "./run_limits.ts";
export { type SandboxHost, sandboxName } from "./sandbox_host.ts";
export { type SandboxOptions, sandboxStarter } from "./sandbox_starter.ts";
