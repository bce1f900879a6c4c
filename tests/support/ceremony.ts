/** Helpers for the ceremonies' tests: what a refusal says, and a ceremony world in memory. */
import assert from "node:assert/strict";
import { ServiceError } from "../../actors/kernel/mod.ts";

/** The `details.refused` of the 401 `work` rejects with (fails the test when it resolves). */
export async function refusalOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${error}`);
    assert.equal(error.code, "unauthenticated");
    return String(error.details?.["refused"]);
  }
  assert.fail("expected a refusal, but it was accepted");
}
