/**
 * One run's cgroups (docs/agents.md, "Running agents safely"): memory 1 GiB, 64 processes and
 * threads, one CPU's worth of time, made before the run (the launcher joins them before it starts
 * bubblewrap) and removed after it, with anything still in them killed.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { CgroupPlaces } from "./cgroup_mounts.ts";
import { RUN_LIMITS } from "./run_limits.ts";

/** The runs' CPU weight against the validator's own tasks (v1 shares, v2 weight; default 1024 / 100). */
const RUNS_CPU_SHARES = "512";
const RUNS_CPU_WEIGHT = "50";
/** How long a killed run's processes may take to leave its cgroup. */
const REMOVE_TRIES = 250;
const REMOVE_PAUSE_MS = 20;

/**
 * Makes the runs' folders and sets the runs' CPU weight; removes the run cgroups a stopped
 * validator left. Throws when the folders cannot be made (not root, or not delegated).
 */
export async function prepareCgroups(places: CgroupPlaces): Promise<CgroupPlaces> {
  let cpu = places.cpu;
  if (places.version === 2) cpu = await enableV2Controllers(places);
  for (const dir of new Set([places.memory, places.pids, cpu ?? places.memory])) {
    await Deno.mkdir(dir, { recursive: true });
    await sweepEmptyRuns(dir);
  }
  if (cpu !== null) {
    const [file, value] = places.version === 1
      ? ["cpu.shares", RUNS_CPU_SHARES]
      : ["cpu.weight", RUNS_CPU_WEIGHT];
    await Deno.writeTextFile(`${cpu}/${file}`, value);
  }
  return { ...places, cpu };
}

/** v2: memory and pids (and cpu when the kernel has it) enabled for the runs' folder and its children. */
async function enableV2Controllers(places: CgroupPlaces): Promise<string | null> {
  const available = (await Deno.readTextFile(`${places.top}/cgroup.controllers`)).trim().split(" ");
  const wanted = ["memory", "pids", "cpu"].filter((name) => available.includes(name));
  if (!wanted.includes("memory") || !wanted.includes("pids")) {
    throw new Error(`cgroup v2 at ${places.top} has no memory or pids controller`);
  }
  const enable = wanted.map((name) => `+${name}`).join(" ");
  await Deno.writeTextFile(`${places.top}/cgroup.subtree_control`, enable);
  await Deno.mkdir(places.memory, { recursive: true });
  await Deno.writeTextFile(`${places.memory}/cgroup.subtree_control`, enable);
  return wanted.includes("cpu") ? places.cpu : null;
}

/**
 * Removes the run cgroups of validators that are gone (`run-<pid>-…`, no process `pid`): a live
 * validator's may be empty for a moment, between being made and being joined.
 */
async function sweepEmptyRuns(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const pid = entry.name.match(/^run-(\d+)-/)?.[1];
    if (!entry.isDirectory || pid === undefined) continue;
    if (await Deno.stat(`/proc/${pid}`).then(() => true, () => false)) continue;
    await Deno.remove(`${dir}/${entry.name}`).catch(() => {}); // not empty: its processes are still dying
  }
}

/** The cgroups of one run. */
export class RunCgroup {
  private constructor(readonly places: CgroupPlaces, readonly dirs: readonly string[]) {}

  /** Makes the run's cgroups, named `name`, with the run's limits. */
  static async create(places: CgroupPlaces, name: string): Promise<RunCgroup> {
    const dirs = [...new Set([places.memory, places.pids, places.cpu].filter((d) => d !== null))]
      .map((base) => `${base}/${name}`);
    const cgroup = new RunCgroup(places, dirs);
    try {
      for (const dir of dirs) {
        // The runs' folder is gone when another validator on this host stopped and removed it.
        await Deno.mkdir(dir).catch(async (error) => {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
          await prepareCgroups(places);
          await Deno.mkdir(dir);
        });
      }
      await cgroup.#setLimits(name);
    } catch (error) {
      await cgroup.destroy().catch(() => {});
      throw error;
    }
    return cgroup;
  }

  /** The `cgroup.procs` files the launcher writes its pid to. */
  get procsFiles(): string[] {
    return this.dirs.map((dir) => `${dir}/cgroup.procs`);
  }

  /** Whether the kernel killed a process of the run for exceeding its memory. */
  async memoryExceeded(): Promise<boolean> {
    const dir = this.dirs[0]!; // the memory controller's
    const file = this.places.version === 1 ? "memory.oom_control" : "memory.events";
    const text = await Deno.readTextFile(`${dir}/${file}`).catch(() => "");
    return Number(text.match(/^oom_kill (\d+)$/m)?.[1] ?? 0) > 0;
  }

  /** Kills whatever is left in the run's cgroups and removes them; throws when they stay busy. */
  async destroy(): Promise<void> {
    for (const dir of this.dirs) {
      for (let attempt = 1;; attempt++) {
        await killAll(dir);
        const removed = await Deno.remove(dir).then(
          () => true,
          (error) => error instanceof Deno.errors.NotFound,
        );
        if (removed) break;
        if (attempt >= REMOVE_TRIES) {
          throw new Error(`Cannot remove the run's cgroup ${dir}: processes remain`);
        }
        await delay(REMOVE_PAUSE_MS);
      }
    }
  }

  async #setLimits(name: string): Promise<void> {
    const { memory, pids, cpu } = this.places;
    const at = (base: string, file: string) => `${base}/${name}/${file}`;
    const memoryBytes = String(RUN_LIMITS.memoryBytes);
    const v1 = this.places.version === 1;
    await Deno.writeTextFile(at(memory, v1 ? "memory.limit_in_bytes" : "memory.max"), memoryBytes);
    // No swapping past the limit (absent when the kernel does not account swap).
    const swap = v1 ? ["memory.memsw.limit_in_bytes", memoryBytes] : ["memory.swap.max", "0"];
    await Deno.writeTextFile(at(memory, swap[0]!), swap[1]!, { create: false }).catch(() => {});
    await Deno.writeTextFile(at(pids, "pids.max"), String(RUN_LIMITS.processes));
    if (cpu === null) return;
    const { cpuQuotaUs, cpuPeriodUs } = RUN_LIMITS;
    if (!v1) return await Deno.writeTextFile(at(cpu, "cpu.max"), `${cpuQuotaUs} ${cpuPeriodUs}`);
    await Deno.writeTextFile(at(cpu, "cpu.cfs_period_us"), String(cpuPeriodUs));
    await Deno.writeTextFile(at(cpu, "cpu.cfs_quota_us"), String(cpuQuotaUs));
  }
}

async function killAll(dir: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/cgroup.kill`, "1", { create: false }).catch(() => {}); // v2 (5.14+): the kernel kills all
  const procs = await Deno.readTextFile(`${dir}/cgroup.procs`).catch(() => "");
  for (const pid of procs.split("\n").filter(Boolean)) {
    try {
      Deno.kill(Number(pid), "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/**
 * Removes the runs' folders when no run is left in them (another validator's runs keep them; one
 * that makes a run after this is gone makes them again).
 */
export async function releaseCgroups(places: CgroupPlaces): Promise<void> {
  for (const dir of new Set([places.memory, places.pids, places.cpu ?? places.memory])) {
    await sweepEmptyRuns(dir).catch(() => {});
    await Deno.remove(dir).catch(() => {});
  }
}
