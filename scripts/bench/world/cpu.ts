/**
 * CPU time of the bench process and of a database's PostgreSQL backends, from `/proc` (Linux): on
 * a shared machine wall time says how long a phase took, CPU time how much work it was.
 */
import type postgres from "postgres";

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of process `pid`, or 0 when it is gone or `/proc` is not there. */
function cpuSeconds(pid: number | "self"): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds so far of this process and of each client backend connected to `sql`'s database
 * (not autovacuum, which the seeded tables wake up at its own time).
 */
async function sample(sql: postgres.Sql): Promise<{ self: number; backends: Map<number, number> }> {
  const rows = await sql<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity
    WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`;
  return { self: cpuSeconds("self"), backends: new Map(rows.map(({ pid }) => [pid, cpuSeconds(pid)])) };
}

/**
 * Starts counting; `stop()` gives the CPU seconds since of this process and of the database's
 * client backends (those connected at the start or the end; one that came and went in between is
 * missed).
 */
export async function cpuMeter(
  sql: postgres.Sql,
): Promise<{ stop(): Promise<{ jsCpuS: number; pgCpuS: number }> }> {
  const start = await sample(sql);
  return {
    async stop() {
      const end = await sample(sql);
      let pg = 0;
      for (const [pid, seconds] of end.backends) pg += seconds - (start.backends.get(pid) ?? 0);
      return { jsCpuS: end.self - start.self, pgCpuS: pg };
    },
  };
}
