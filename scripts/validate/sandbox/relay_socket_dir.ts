/**
 * A folder for a run's LLM relay socket that the run's user can reach (bubblewrap binds the socket
 * as that user): for a validator running as root, owned by root with the agent user's group and
 * mode 0710 (no other user can even look inside); else the validator's own, mode 0700.
 */
import type { SandboxHost } from "./sandbox_host.ts";

export async function makeRelaySocketDir(host: SandboxHost): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "fgw-relay-" });
  if (host.user !== null) {
    await Deno.chown(dir, 0, host.user.gid);
    await Deno.chmod(dir, 0o710);
  }
  return dir;
}
