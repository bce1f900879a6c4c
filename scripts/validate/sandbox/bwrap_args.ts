/**
 * bubblewrap's arguments for one run (docs/agents.md, "Running agents safely"): every namespace
 * of its own (user, PID, IPC, network, mount, UTS, cgroup) with no way to make more, no
 * capabilities, a new session, an empty environment; a read-only root holding only the system's
 * Python runtime; a fresh `/proc` and a minimal `/dev`; one size-capped tmpfs for every writable
 * place (scratch, `/tmp`, `/dev/shm`); the relay socket when there is one. The launcher adds the
 * seccomp filter and the files it copies in (`launcher.py`).
 */
import { INSIDE, INSIDE_ID, RUN_LIMITS } from "./run_limits.ts";

/** A top-level system path: bound read-only when it is a directory, recreated when a symlink. */
export interface RootEntry {
  path: string;
  /** The symlink's target, or null for a directory. */
  link: string | null;
}

export interface SandboxLayout {
  /** `/usr` and the top-level paths the interpreter needs (`/bin`, `/lib`, `/lib64`, …). */
  roots: readonly RootEntry[];
  /** The interpreter, as the sandbox sees it (a path under the roots). */
  python: string;
  /** The host path of the run's LLM relay socket. */
  relaySocket?: string;
  /** Whether a library directory is copied to `INSIDE.lib`. */
  withLib: boolean;
}

const DEVICES = ["null", "zero", "full", "random", "urandom"];

/** The arguments after the launcher's own, ending with the command that runs the agent. */
export function bwrapArgs(layout: SandboxLayout): string[] {
  return [
    ...namespaceArgs(),
    ...layout.roots.flatMap(rootArgs),
    ...["--proc", "/proc"],
    ...devArgs(),
    ...writableArgs(),
    ...(layout.relaySocket === undefined ? [] : ["--bind", layout.relaySocket, INSIDE.relaySocket]),
    ...["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", INSIDE.scratch, "--"],
    ...runnerCommand(layout),
  ];
}

function namespaceArgs(): string[] {
  const id = String(INSIDE_ID);
  return [
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    ...["--uid", id, "--gid", id, "--hostname", "agent"],
    ...["--cap-drop", "ALL", "--new-session", "--die-with-parent", "--clearenv"],
  ];
}

function rootArgs(entry: RootEntry): string[] {
  return entry.link === null ? ["--ro-bind", entry.path, entry.path] : ["--symlink", entry.link, entry.path];
}

function devArgs(): string[] {
  const streams = ["stdin", "stdout", "stderr"].flatMap((name, fd) => [
    "--symlink",
    `/proc/self/fd/${fd}`,
    `/dev/${name}`,
  ]);
  return [
    ...["--tmpfs", "/dev"],
    ...DEVICES.flatMap((name) => ["--dev-bind", `/dev/${name}`, `/dev/${name}`]),
    ...["--symlink", "/proc/self/fd", "/dev/fd"],
    ...streams,
  ];
}

function writableArgs(): string[] {
  const places = { scratch: INSIDE.scratch, tmp: "/tmp", shm: "/dev/shm" };
  return [
    ...["--size", String(RUN_LIMITS.writableBytes), "--tmpfs", INSIDE.writable],
    ...Object.entries(places).flatMap(([name, path]) => [
      ...["--dir", `${INSIDE.writable}/${name}`],
      ...["--symlink", `${INSIDE.writable}/${name}`, path],
    ]),
  ];
}

function runnerCommand(layout: SandboxLayout): string[] {
  return [
    ...[layout.python, "-I", "-S", "-B", INSIDE.runner],
    ...["--max-processes", String(RUN_LIMITS.processes)],
    ...(layout.withLib ? ["--lib", INSIDE.lib] : []),
    ...(layout.relaySocket === undefined ? [] : ["--relay-socket", INSIDE.relaySocket]),
  ];
}
