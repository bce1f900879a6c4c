/**
 * The run starter `deno task validate` uses: the sandbox once the host check has passed, or, only
 * when asked with `--unsafe-no-sandbox`, bare runs that print a warning each time. A host that
 * cannot sandbox stops the validator with what is missing and how to fix it; it never falls back
 * to running agents unsandboxed on its own.
 */
import { bareStarter, checkPython } from "./bare_starter.ts";
import type { RunOptions, RunStarter } from "./run_starter.ts";
import { checkSandboxHost, releaseCgroups, type SandboxHost, sandboxStarter } from "./sandbox/mod.ts";

export const UNSAFE_WARNING = "warning: running this agent WITHOUT the sandbox (--unsafe-no-sandbox): " +
  "it has your user, files, environment and network; use it for code you trust only";

export interface StarterSetup {
  python: string;
  unsafe: boolean;
  /** Where to look for bwrap (PATH). */
  path: string;
  /** A directory put first on the agent's import path (the `forecasting_gateway` module). */
  libDir?: string;
  err(text: string): void;
}

export interface Starters {
  starter: RunStarter;
  /** The sandbox's host, or null for bare runs. */
  host: SandboxHost | null;
  /** What to undo when the validator stops (the runs' cgroup folders). */
  release(): Promise<void>;
}

/** The starter, or the text of why there is none (the validator stops with status 2). */
export async function setUpStarter(setup: StarterSetup): Promise<Starters | string> {
  if (setup.unsafe) {
    const problem = await checkPython(setup.python).then(() => null, (error: Error) => error.message);
    if (problem !== null) return problem;
    const bare = bareStarter({ python: setup.python, ...libDir(setup) });
    const starter: RunStarter = {
      ...bare,
      start: (run: RunOptions) => {
        setup.err(UNSAFE_WARNING);
        return bare.start(run);
      },
    };
    return { starter, host: null, release: () => Promise.resolve() };
  }
  const check = await checkSandboxHost({ python: setup.python, path: setup.path });
  if (!check.ok) {
    const lines = check.problems.map((problem) => `- missing: ${problem.missing}\n  fix: ${problem.fix}`);
    return `The agent sandbox cannot run on this host:\n${lines.join("\n")}`;
  }
  for (const note of check.notes) setup.err(`note: ${note}`);
  const { host } = check;
  const release = () => host.cgroups ? releaseCgroups(host.cgroups) : Promise.resolve();
  return { starter: sandboxStarter(host, libDir(setup)), host, release };
}

function libDir(setup: StarterSetup): { libDir?: string } {
  return setup.libDir === undefined ? {} : { libDir: setup.libDir };
}
