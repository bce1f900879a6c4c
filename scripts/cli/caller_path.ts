import { isAbsolute, join } from "node:path";

/**
 * A path the user typed, resolved against the folder they ran the command from: `deno task` runs
 * scripts from the folder of deno.json and names the caller's folder in `INIT_CWD`, so that
 * `deno task sign --body-file upload.json` reads the `upload.json` the shell's `curl` sends.
 */
export function callerPath(
  path: string,
  env: Record<string, string | undefined> = { INIT_CWD: Deno.env.get("INIT_CWD") },
): string {
  const from = env.INIT_CWD;
  return from === undefined || from === "" || isAbsolute(path) ? path : join(from, path);
}
