/** What the host check reads from the host: programs, the interpreter, kernel settings, `/`'s layout. */
import type { RootEntry } from "./bwrap_args.ts";
import { FIXES, type HostProblem } from "./host_fixes.ts";

/** How long one probe's program may take. */
const PROBE_TIMEOUT_MS = 30_000;
/** Top-level paths the system interpreter may need besides `/usr` (merged-/usr systems: symlinks). */
const TOP_LEVEL = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** The first `bwrap` on `path` (a PATH value), or null. */
export async function findBwrap(path: string): Promise<string | null> {
  for (const dir of path.split(":").filter(Boolean)) {
    const candidate = `${dir}/bwrap`;
    const info = await Deno.stat(candidate).catch(() => null);
    if (info?.isFile && (info.mode ?? 0) & 0o111) return candidate;
  }
  return null;
}

/** "0.8.0" from `bwrap --version`, or null when it does not answer. */
export async function bwrapVersion(bwrap: string): Promise<string | null> {
  const said = await outputOf(bwrap, ["--version"]);
  return said?.match(/(\d+\.\d+\.\d+)/)?.[1] ?? null;
}

/** Whether version `a` ("1.2.3") is at least `b`. */
export function versionAtLeast(a: string, b: string): boolean {
  const [x, y] = [a, b].map((text) => text.split(".").map(Number));
  for (let i = 0; i < 3; i++) {
    const diff = (x![i] ?? 0) - (y![i] ?? 0);
    if (diff !== 0) return diff > 0;
  }
  return true;
}

export interface PythonFacts {
  /** The `seccomp` module's folder. */
  seccompModuleDir: string;
}

const PYTHON_PROBE = "import sys\nprint('%d.%d' % sys.version_info[:2])\ntry:\n    import seccomp, os\n" +
  "    print(os.path.dirname(seccomp.__file__))\nexcept ImportError:\n    print('')\n";

/** The interpreter's facts, or the problems that keep it from running agents. */
export async function pythonFacts(python: string, roots: RootEntry[]): Promise<PythonFacts | HostProblem[]> {
  const real = await Deno.realPath(python).catch((error) =>
    error instanceof Error ? error : new Error(String(error))
  );
  if (real instanceof Error) return [FIXES.noPython(python, real.message)];
  const bound = roots.filter((root) => root.link === null).map((root) => `${root.path}/`);
  if (!bound.some((dir) => real.startsWith(dir))) return [FIXES.notSystemPython(python, real)];
  const said = await outputOf(real, ["-I", "-c", PYTHON_PROBE]);
  if (said === null) return [FIXES.noPython(python, "it does not run")];
  const [version = "", seccompDir = ""] = said.split("\n");
  const problems: HostProblem[] = [];
  if (!versionAtLeast(version, "3.11")) problems.push(FIXES.oldPython(python, version));
  if (seccompDir === "") problems.push(FIXES.noSeccomp(python));
  return problems.length > 0 ? problems : { seccompModuleDir: seccompDir };
}

/** Kernel settings that turn user namespaces off (each named with the value that turns them on). */
export async function userNamespaceProblems(): Promise<HostProblem[]> {
  const settings: [string, string, string][] = [
    ["user.max_user_namespaces", "/proc/sys/user/max_user_namespaces", "15000"],
    ["kernel.unprivileged_userns_clone", "/proc/sys/kernel/unprivileged_userns_clone", "1"],
  ];
  const problems: HostProblem[] = [];
  for (const [setting, file, on] of settings) {
    const value = await Deno.readTextFile(file).then((text) => text.trim(), () => null);
    if (value === "0") problems.push(FIXES.userNamespacesOff(setting, on));
  }
  return problems;
}

/** Whether Ubuntu's AppArmor restriction of unprivileged user namespaces is on. */
export async function appArmorRestricts(): Promise<boolean> {
  const file = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns";
  return await Deno.readTextFile(file).then((text) => text.trim() === "1", () => false);
}

/** `/usr` (bound) and the top-level paths that exist: symlinks recreated, folders bound. */
export async function rootEntries(): Promise<RootEntry[]> {
  const entries: RootEntry[] = [{ path: "/usr", link: null }];
  for (const path of TOP_LEVEL) {
    const info = await Deno.lstat(path).catch(() => null);
    if (info?.isSymlink) entries.push({ path, link: await Deno.readLink(path) });
    else if (info?.isDirectory) entries.push({ path, link: null });
  }
  return entries;
}

async function outputOf(program: string, args: string[]): Promise<string | null> {
  try {
    const output = await new Deno.Command(program, {
      args,
      clearEnv: true,
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).output();
    return output.success ? new TextDecoder().decode(output.stdout).trim() : null;
  } catch {
    return null;
  }
}
