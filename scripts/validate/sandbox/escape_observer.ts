/**
 * The identity check seen from outside (docs/agents.md, "The escape suite"): while the agent waits
 * in a process whose command line holds the world's marker, find it on the host, read its host
 * uid from `/proc/<pid>/status` and the owner of the file it made in scratch through
 * `/proc/<pid>/cwd`, then let it go on (SIGUSR1). The agent gives up waiting by itself after a
 * while, so a missed observation fails the check instead of hanging it.
 */
import type { EscapeWorld } from "./escape_world.ts";

const SCAN_PAUSE_MS = 50;

/** Watches until it has seen the identity check's agent, or `signal` aborts; records it in `world`. */
export async function observeIdentity(world: EscapeWorld, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const pid = await waitingAgent(world.marker);
    if (pid !== null) {
      const status = await Deno.readTextFile(`/proc/${pid}/status`);
      const hostUid = Number(status.match(/^Uid:\s+(\d+)/m)?.[1]);
      const file = await Deno.stat(`/proc/${pid}/cwd/identity-probe`);
      world.identity = { hostUid, fileUid: file.uid ?? -1 };
      Deno.kill(pid, "SIGUSR1");
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, SCAN_PAUSE_MS));
  }
}

async function waitingAgent(marker: string): Promise<number | null> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const command = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    if (command.includes("sigwait") && command.includes(marker)) return Number(entry.name);
  }
  return null;
}
