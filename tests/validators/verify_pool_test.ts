/**
 * `VerifyPool`: sr25519 verification on worker threads answers exactly as the same verification
 * on the calling thread, for valid and invalid signatures, under concurrency; a worker that cannot
 * start, a closed pool and a pool of size 0 answer inline.
 */
import assert from "node:assert/strict";
import * as scure from "@scure/sr25519";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import {
  checkSignature,
  parseSignatureHeaders,
  scureSr25519Verify,
  signerFromSecretHex,
  signRequest,
  type Sr25519Verify,
  VerifyPool,
} from "../../actors/validators/mod.ts";
import { type LogLine, ServiceError } from "../../actors/kernel/mod.ts";

interface Case {
  signature: Uint8Array;
  message: Uint8Array;
  publicKey: Uint8Array;
  valid: boolean;
}

/** `count` signatures by a few keys; every third has its message changed, every fifth a wrong key. */
function cases(count: number): Case[] {
  const secrets = [1, 2, 3].map((n) => scure.secretFromSeed(new Uint8Array(32).fill(n)));
  return Array.from({ length: count }, (_, i) => {
    const secret = secrets[i % secrets.length]!;
    const message = utf8ToBytes(`message ${i}`);
    const signature = scure.sign(secret, message);
    const key = i % 5 === 4 ? secrets[(i + 1) % secrets.length]! : secret;
    const changed = i % 3 === 2;
    return {
      signature,
      message: changed ? utf8ToBytes(`message ${i}!`) : message,
      publicKey: scure.getPublicKey(key),
      valid: !changed && i % 5 !== 4,
    };
  });
}

/** The inline verification, counting its calls. */
function countingInline(): { verify: Sr25519Verify; calls: () => number } {
  let calls = 0;
  return {
    verify: (signature, message, publicKey) => {
      calls++;
      return scureSr25519Verify(signature, message, publicKey);
    },
    calls: () => calls,
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  // Generous: starting a worker thread can take many seconds on a busy machine; success ends it early.
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function verdicts(pool: VerifyPool, all: Case[]): Promise<boolean[]> {
  return await Promise.all(all.map((c) => pool.verify(c.signature, c.message, c.publicKey)));
}

Deno.test("workers answer every verification as the inline verifier would, under concurrency", async () => {
  const inline = countingInline();
  const pool = new VerifyPool({ size: 2, inline: inline.verify });
  try {
    const all = cases(120);
    assert.deepEqual(await verdicts(pool, all.slice(0, 2)), all.slice(0, 2).map((c) => c.valid));
    assert.equal(inline.calls(), 2, "before a worker is ready, jobs are verified inline");
    await until(() => pool.readyWorkers >= 1, "a ready worker");
    const before = inline.calls();
    assert.deepEqual(await verdicts(pool, all), all.map((c) => c.valid));
    assert.equal(inline.calls(), before, "a ready pool verifies nothing inline");
    assert.ok(pool.workers >= 1 && pool.workers <= 2, `workers: ${pool.workers}`);
    await until(() => pool.readyWorkers === 2, "a second worker, started while the first was busy");
    assert.deepEqual(await verdicts(pool, all), all.map((c) => c.valid));
    assert.equal(inline.calls(), before);
  } finally {
    pool.close();
  }
});

Deno.test("views into larger buffers are verified as their own bytes", async () => {
  const pool = new VerifyPool({ size: 1, inline: scureSr25519Verify });
  try {
    await pool.verify(new Uint8Array(64), new Uint8Array(1), new Uint8Array(32));
    await until(() => pool.readyWorkers === 1, "a ready worker");
    const [good] = cases(1);
    const padded = new Uint8Array(200);
    padded.set(good!.signature, 17);
    const view = padded.subarray(17, 17 + 64);
    assert.equal(await pool.verify(view, good!.message, good!.publicKey), true);
    assert.equal(await pool.verify(padded.subarray(16, 16 + 64), good!.message, good!.publicKey), false);
  } finally {
    pool.close();
  }
});

/** A pool of `module` (a test worker), its warnings, and its inline verifier's calls. */
function poolOf(module: string, timeouts: { startTimeoutMs?: number; answerTimeoutMs?: number } = {}) {
  const logged: LogLine[] = [];
  const inline = countingInline();
  const pool = new VerifyPool({
    size: 2,
    inline: inline.verify,
    log: (line) => logged.push(line),
    workerUrl: new URL(module, import.meta.url),
    ...timeouts,
  });
  return { pool, logged, inline };
}

/**
 * Verifies `all` through `pool` until it gives up on workers (after three failures in a row; a
 * worker started before that may fail after), checking every answer; then no worker is started
 * again and everything runs inline.
 */
async function untilGivenUp(
  { pool, logged, inline }: ReturnType<typeof poolOf>,
  all: Case[],
): Promise<void> {
  const givenUp = () => logged.some((line) => /no more are started/.test(String(line.msg)));
  for (let attempt = 0; attempt < 100 && !givenUp(); attempt++) {
    assert.deepEqual(await verdicts(pool, all), all.map((c) => c.valid));
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  assert.ok(givenUp(), "given up");
  assert.ok(logged.length >= 3, "one warning per failed worker");
  assert.ok(logged.every((line) => line.level === "warn"));
  // A worker started before giving up fails too: at its start, or (a silent one that became
  // ready meanwhile) at the deadline of the first jobs it is given, which are then verified inline.
  for (let round = 0; round < 100 && pool.workers > 0; round++) {
    assert.deepEqual(await verdicts(pool, all), all.map((c) => c.valid));
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  assert.equal(pool.workers, 0, "the workers started before giving up have failed");
  const warnings = logged.length;
  const calls = inline.calls();
  assert.deepEqual(await verdicts(pool, all), all.map((c) => c.valid));
  assert.equal(inline.calls(), calls + all.length, "verified inline");
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(pool.workers, 0, "no worker started again");
  assert.equal(logged.length, warnings);
}

Deno.test("a worker that cannot start leaves its jobs inline; after three failures none is started", async () => {
  const world = poolOf("./failing_verify_worker.ts");
  try {
    await untilGivenUp(world, cases(6));
  } finally {
    world.pool.close();
  }
});

Deno.test("a worker that is never ready fails at its start deadline; its jobs never wait", async () => {
  const world = poolOf("./never_ready_verify_worker.ts", { startTimeoutMs: 50 });
  try {
    await untilGivenUp(world, cases(6));
    assert.match(String(world.logged[0]!.error), /not ready in time/);
  } finally {
    world.pool.close();
  }
});

Deno.test("a ready worker that stops answering fails at its answer deadline; its jobs are verified inline", async () => {
  const world = poolOf("./silent_verify_worker.ts", { answerTimeoutMs: 50 });
  try {
    await world.pool.verify(new Uint8Array(64), new Uint8Array(1), new Uint8Array(32));
    await until(() => world.pool.readyWorkers === 1, "a ready worker");
    const all = cases(6);
    assert.deepEqual(await verdicts(world.pool, all), all.map((c) => c.valid), "answered after the deadline");
    assert.match(String(world.logged[0]!.error), /did not answer in time/);
    await untilGivenUp(world, all);
  } finally {
    world.pool.close();
  }
});

Deno.test("close answers the jobs in flight, and later jobs run inline; size 0 never starts a worker", async () => {
  const inline = countingInline();
  const pool = new VerifyPool({ size: 1, inline: inline.verify });
  const all = cases(30);
  await pool.verify(all[0]!.signature, all[0]!.message, all[0]!.publicKey);
  await until(() => pool.readyWorkers === 1, "a ready worker");
  const inFlight = verdicts(pool, all);
  pool.close();
  assert.deepEqual(await inFlight, all.map((c) => c.valid));
  assert.equal(pool.workers, 0);
  assert.deepEqual(await verdicts(pool, all.slice(0, 3)), all.slice(0, 3).map((c) => c.valid));
  assert.equal(pool.workers, 0, "a closed pool starts no worker");

  const none = new VerifyPool({ size: 0, inline: inline.verify });
  const calls = inline.calls();
  assert.deepEqual(await verdicts(none, all), all.map((c) => c.valid));
  assert.equal(inline.calls(), calls + all.length);
  assert.equal(none.workers, 0);
  none.close();
});

Deno.test("the guard's signature step through the pool: a signed request verifies, a changed body is refused", async () => {
  const pool = new VerifyPool({ size: 1, inline: scureSr25519Verify });
  try {
    const signer = signerFromSecretHex("07".repeat(32));
    const body = '{"agentPredictionId":"ap_1"}';
    const request = { method: "POST", url: "/v1/validators/prediction", body };
    const headers = parseSignatureHeaders(
      new Headers(signRequest(signer, request, { role: "validator", nowMs: 1_700_000_000_000 })),
      "validator",
    );
    const parts = { method: "POST", target: request.url, body: utf8ToBytes(body) };
    await pool.verify(new Uint8Array(64), new Uint8Array(1), new Uint8Array(32));
    await until(() => pool.readyWorkers === 1, "a ready worker");
    assert.deepEqual(await checkSignature(headers, parts, pool), { wrapped: false });
    await assert.rejects(
      checkSignature(headers, { ...parts, body: utf8ToBytes(body.replace("1", "2")) }, pool),
      (error) => error instanceof ServiceError && error.code === "invalid_signature",
    );
  } finally {
    pool.close();
  }
});
