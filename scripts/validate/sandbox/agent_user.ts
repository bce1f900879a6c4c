/**
 * The dedicated unprivileged user a validator running as root starts its runs as (docs/agents.md,
 * "Running agents safely"): a run never has the host's uid 0. Made when missing (a system user
 * with no home and no login shell). A validator that is not root runs agents as itself.
 */

export const AGENT_USER = "fgw-agent";

export interface HostIds {
  uid: number;
  gid: number;
}

/** The agent user's ids, read from a passwd file's text, or null when it has no such line. */
export function userIn(passwd: string, name: string): HostIds | null {
  for (const line of passwd.split("\n")) {
    const [user, , uid, gid] = line.split(":");
    if (user === name && uid !== undefined && gid !== undefined) {
      return { uid: Number(uid), gid: Number(gid) };
    }
  }
  return null;
}

/** The agent user's ids, making the user first when it is missing (root only). */
export async function ensureAgentUser(): Promise<HostIds> {
  const found = userIn(await Deno.readTextFile("/etc/passwd"), AGENT_USER);
  if (found) return checked(found);
  const args = ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin"];
  const made = await new Deno.Command("useradd", {
    args: [...args, AGENT_USER],
    stdout: "null",
    stderr: "piped",
  })
    .output().catch((error) => ({ success: false, stderr: new TextEncoder().encode(String(error)) }));
  const again = userIn(await Deno.readTextFile("/etc/passwd"), AGENT_USER);
  if (!again) {
    const why = new TextDecoder().decode(made.stderr).trim();
    throw new Error(`Cannot create the agent user ${AGENT_USER}${why ? `: ${why}` : ""}`);
  }
  return checked(again);
}

function checked(ids: HostIds): HostIds {
  if (ids.uid === 0 || ids.gid === 0) {
    throw new Error(`The agent user ${AGENT_USER} must not have uid or gid 0`);
  }
  return ids;
}
