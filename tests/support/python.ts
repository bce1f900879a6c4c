/**
 * Tests that run Python with the system interpreter (the one a validator's sandbox runs agents
 * with): reported as ignored, the reason in their name, on a machine without it.
 */
import { fileURLToPath } from "node:url";

export const SYSTEM_PYTHON = "/usr/bin/python3";

/** The folder of the modules a validator offers agents (`forecasting_gateway`). */
export const AGENT_MODULES = fileURLToPath(new URL("../../scripts/validate/python", import.meta.url));

const hasSystemPython = await new Deno.Command(SYSTEM_PYTHON, {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
}).output().then((output) => output.success, () => false);

/** A test that needs `SYSTEM_PYTHON`, ignored (saying so in its name) without it. */
export function pythonTest(name: string, fn: () => Promise<void>): void {
  Deno.test({
    name: hasSystemPython ? name : `${name} (ignored: needs ${SYSTEM_PYTHON})`,
    ignore: !hasSystemPython,
    fn,
  });
}

/**
 * Runs `code` with `AGENT_MODULES` importable and `env` as the whole environment; its last line of
 * output is JSON, which is returned. Throws with stderr when Python fails.
 */
export async function runPython(code: string, env: Record<string, string> = {}): Promise<unknown> {
  const output = await new Deno.Command(SYSTEM_PYTHON, {
    args: ["-I", "-B", "-c", `import sys\nsys.path.insert(0, ${JSON.stringify(AGENT_MODULES)})\n${code}`],
    clearEnv: true,
    env,
  }).output();
  const stdout = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) throw new Error(`python failed: ${new TextDecoder().decode(output.stderr)}`);
  return JSON.parse(stdout.split("\n").at(-1) ?? "null");
}
