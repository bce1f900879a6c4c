/**
 * The isolation defaults every sandboxed run gets (docs/agents.md, "What a miner can rely on"),
 * and where things are inside the sandbox.
 */

/** Limits of one run. */
export const RUN_LIMITS = {
  /** Memory of the whole run (a cgroup limit, else RLIMIT_AS, which counts virtual memory). */
  memoryBytes: 1024 ** 3,
  /** Processes and threads of the whole run. */
  processes: 64,
  /** One cap on every writable place: scratch, /tmp and /dev/shm together. */
  writableBytes: 64 * 1024 ** 2,
  /** CPU time per scheduling period, as a share of one CPU (a cgroup quota). */
  cpuQuotaUs: 100_000,
  cpuPeriodUs: 100_000,
  /** The run's CPU priority below the validator's (nice value). */
  nice: 10,
  /** Descriptors one process may hold open. */
  openFiles: 1024,
} as const;

/** Paths inside the sandbox. */
export const INSIDE = {
  /** The LLM relay's socket, when the validator gives one (docs/agents.md, "LLM calls"). */
  relaySocket: "/run/fgw/relay.sock",
  /** A read-only directory first on the agent's import path (the `forecasting_gateway` module). */
  lib: "/run/fgw/lib",
  /** The runner script (copied in, read-only). */
  runner: "/run/fgw/runner.py",
  /** The one size-capped tmpfs holding scratch, /tmp and /dev/shm. */
  writable: "/run/fgw/rw",
  /** The working directory (a symlink into `writable`). */
  scratch: "/scratch",
} as const;

/** The uid and gid the agent sees inside its user namespace (the host's are never 0). */
export const INSIDE_ID = 1000;
