/**
 * Tests that run Python: agents with `python3` (bare runs), or the system interpreter a validator's
 * sandbox runs agents with (`SYSTEM_PYTHON`, the validator's default). Without the interpreter a
 * test needs it is reported as ignored, with the reason in its name, so a machine without Python
 * still runs the rest of the suite; with `FGW_REQUIRE_PYTHON=1` (set by `.ci/run`) it runs anyway
 * and fails, so CI cannot lose it.
 */
import { AGENT_LIB_DIR } from "../../scripts/validate/validate.ts";

/** The system interpreter (`deno task validate --python`'s default). */
export const SYSTEM_PYTHON = "/usr/bin/python3";

/** The interpreters a test may need. */
export type TestPython = "python3" | typeof SYSTEM_PYTHON;

async function runs(python: TestPython): Promise<boolean> {
  try {
    const command = new Deno.Command(python, { args: ["--version"], stdout: "null", stderr: "null" });
    return (await command.output()).success;
  } catch (error) {
    // Spawning throws when there is no such program.
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

const found: Record<TestPython, boolean> = {
  python3: await runs("python3"),
  [SYSTEM_PYTHON]: await runs(SYSTEM_PYTHON),
};

/** True when `python3 --version` runs here. */
export const hasPython = found.python3;

/** `FGW_REQUIRE_PYTHON=1`: a missing interpreter fails these tests instead of ignoring them. */
const requirePython = Deno.env.get("FGW_REQUIRE_PYTHON") === "1";

/**
 * Registers a test that needs `python` (default `python3` on PATH; see the module doc for what
 * happens without it).
 */
export function pythonTest(definition: { name: string; python?: TestPython; fn: () => Promise<void> }): void {
  const python = definition.python ?? "python3";
  const ignore = !found[python] && !requirePython;
  Deno.test({
    name: ignore ? `${definition.name} (ignored: ${python} not found)` : definition.name,
    ignore,
    fn: async () => {
      if (!found[python]) {
        throw new Error(`Cannot run the test: ${python} not found, and FGW_REQUIRE_PYTHON=1`);
      }
      await definition.fn();
    },
  });
}

/**
 * Runs `code` with `SYSTEM_PYTHON`, `AGENT_LIB_DIR` importable and `env` as the whole environment;
 * its last line of output is JSON, which is returned. Throws with stderr when Python fails.
 */
export async function runPython(code: string, env: Record<string, string> = {}): Promise<unknown> {
  const output = await new Deno.Command(SYSTEM_PYTHON, {
    args: ["-I", "-B", "-c", `import sys\nsys.path.insert(0, ${JSON.stringify(AGENT_LIB_DIR)})\n${code}`],
    clearEnv: true,
    env,
  }).output();
  const stdout = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) throw new Error(`python failed: ${new TextDecoder().decode(output.stderr)}`);
  return JSON.parse(stdout.split("\n").at(-1) ?? "null");
}
