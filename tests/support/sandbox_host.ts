/**
 * The sandbox of this machine for tests that run agents in it (checked once per worker): its host,
 * or why the tests that need it are ignored (bubblewrap is not installed). Any other host problem
 * is not a reason to ignore them: `sandboxHost()` throws it, and the test fails saying what is
 * missing.
 */
import { checkSandboxHost, type SandboxHost } from "../../scripts/validate/sandbox/mod.ts";
import { findBwrap } from "../../scripts/validate/sandbox/host_probes.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const bwrapInstalled = await findBwrap(PATH) !== null;

/** Why sandboxed tests are ignored here, or null when bubblewrap is installed. */
export const SANDBOX_IGNORED = bwrapInstalled ? null : "bubblewrap is not installed";

/** A test's options: ignored when there is no bubblewrap, named with the reason. */
export function needsSandbox(name: string): { name: string; ignore: boolean } {
  return {
    name: SANDBOX_IGNORED ? `${name} (ignored: ${SANDBOX_IGNORED})` : name,
    ignore: SANDBOX_IGNORED !== null,
  };
}

let checked: Promise<SandboxHost> | undefined;

/** The host check's result for the system interpreter (throws its problems). */
export function sandboxHost(): Promise<SandboxHost> {
  checked ??= checkSandboxHost({ python: "/usr/bin/python3", path: PATH }).then((check) => {
    if (check.ok) return check.host;
    throw new Error(check.problems.map((p) => `${p.missing} (fix: ${p.fix})`).join("\n"));
  });
  return checked;
}
