/**
 * Tests that run agents with `python3`. Without it they are reported as ignored, with the reason in
 * their name, so a machine without Python still runs the rest of the suite; with
 * `FGW_REQUIRE_PYTHON=1` (set by `.ci/run`) they run anyway and fail, so CI cannot lose them.
 */

/** True when `python3 --version` runs here. */
export const hasPython = await pythonRuns();

async function pythonRuns(): Promise<boolean> {
  try {
    const command = new Deno.Command("python3", { args: ["--version"], stdout: "null", stderr: "null" });
    return (await command.output()).success;
  } catch (error) {
    // Spawning throws when no python3 is on PATH.
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** `FGW_REQUIRE_PYTHON=1`: a missing python3 fails these tests instead of ignoring them. */
const requirePython = Deno.env.get("FGW_REQUIRE_PYTHON") === "1";

/** The suffix of an ignored test's name: why it did not run. */
const PYTHON_MISSING = "(ignored: python3 not found)";

/** Registers a test that needs python3 (see the module doc for what happens without it). */
export function pythonTest(definition: { name: string; fn: () => Promise<void> }): void {
  const ignore = !hasPython && !requirePython;
  Deno.test({
    name: ignore ? `${definition.name} ${PYTHON_MISSING}` : definition.name,
    ignore,
    fn: async () => {
      if (!hasPython) throw new Error("Cannot run the test: python3 not found, and FGW_REQUIRE_PYTHON=1");
      await definition.fn();
    },
  });
}
