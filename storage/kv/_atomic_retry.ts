import { WriteConflictError } from "../retry_conditional.ts";

/**
 * Attempts before a commit that keeps finding the file locked gives up with a `WriteConflictError`
 * (409 `conflict` with `Retry-After`, never a 500). With random pauses of up to 50 ms this is a few
 * seconds of trying, which 32 racing claimers on two handles measured to need.
 */
const MAX_ATTEMPTS = 100;

/**
 * Commits the atomic operation that `build` returns, and commits it again while SQLite reports the
 * store file locked by another handle. With two handles on one KV file (two service instances),
 * Deno KV throws `TypeError: database is locked` for a checked commit that raced a write from the
 * other handle, instead of answering `ok: false`. Nothing was written then, so the operation is
 * rebuilt and committed again, after a short random pause; its checks decide afresh.
 */
export async function commitAtomic(
  build: () => Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  for (let attempt = 1;; attempt++) {
    try {
      return await build().commit();
    } catch (error) {
      if (!isLocked(error)) throw error;
      if (attempt >= MAX_ATTEMPTS) {
        throw new WriteConflictError(`Cannot commit: the store file stayed locked for ${attempt} attempts`);
      }
      await pause(1 + Math.random() * Math.min(2 ** attempt, 50));
    }
  }
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked/i.test(error.message);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
