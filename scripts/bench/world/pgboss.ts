/**
 * The job-queue reference of `bench:leases`: pg-boss 10 on its own scratch database holding `jobs`
 * queued jobs (`bench:leases` queues 20,000), `workers` loops each fetching one job and
 * completing it until the queue is empty or `seconds` have passed. pg-boss slows down as its queue
 * grows (here 675–743 jobs/s with 2,000 queued, 137 with 20,000, the same hour), so the loop it is
 * compared with must start from the same depth.
 */
import PgBoss from "pg-boss";

/** Jobs fetched and completed per second; throws if a job was handed out twice. */
export async function benchPgBoss(
  url: string,
  options: { jobs: number; workers: number; seconds: number },
): Promise<number> {
  const boss = new PgBoss({ connectionString: url, max: options.workers });
  let stopped = false;
  // Idle pool connections outlive `stop` and are cut when the scratch database is dropped.
  boss.on("error", (error) => {
    if (!stopped) console.error(`pg-boss: ${error.message}`);
  });
  await boss.start();
  try {
    const queue = "bench";
    await boss.createQueue(queue);
    const jobs = Array.from({ length: options.jobs }, (_, index) => ({ name: queue, data: { index } }));
    for (let start = 0; start < jobs.length; start += 1_000) {
      await boss.insert(jobs.slice(start, start + 1_000));
    }
    const seen = new Set<string>();
    let duplicates = 0;
    const deadline = performance.now() + options.seconds * 1_000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const [job] = await boss.fetch<{ index: number }>(queue);
        if (!job) return;
        if (seen.has(job.id)) duplicates++;
        seen.add(job.id);
        await boss.complete(queue, job.id);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: options.workers }, worker));
    const seconds = (performance.now() - started) / 1_000;
    if (duplicates > 0) throw new Error(`pg-boss handed out ${duplicates} jobs twice`);
    return seen.size / seconds;
  } finally {
    stopped = true;
    await boss.stop({ graceful: false, wait: true });
  }
}
