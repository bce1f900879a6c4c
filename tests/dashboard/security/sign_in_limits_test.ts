/**
 * Sign-in rate limits: every sign-in request per client address, and failed verifications per
 * account, counted in the shared rate-limit store (two instances on one store count together).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../actors/kernel/mod.ts";
import { SIGN_IN_LIMITS } from "../../../routes/dashboard/sign_in_limits.ts";
import type { Storage } from "../../../storage/storage.ts";
import { ADMIN_TOKEN, createOrg } from "../../support/access.ts";
import { adapterTest } from "../../support/adapters.ts";
import { type Fetcher, ORIGIN } from "../../support/dashboard.ts";
import {
  forgedAnswer,
  fromAddress,
  memberWithPasskey,
  postJson,
  sendSignIn,
  signInChallenge,
  signInVisitor,
  signInWithPasskey,
} from "../../support/dashboard_sign_in.ts";
import type { SoftPasskey } from "../../support/soft_passkey.ts";
import { openTestService, TEST_START_MS, type TestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };
const OPTIONS = "/dashboard/sign-in/passkey/options";
const { perAddress, perAccount } = SIGN_IN_LIMITS;

/** Two service instances on one store, sharing one manual clock (at the start of a window). */
async function twoInstances(first: Storage, second: Storage, env = ON): Promise<[TestService, TestService]> {
  const clock = new ManualClock(TEST_START_MS);
  return [
    await openTestService({ env, clock, storage: first }),
    await openTestService({ env, clock, storage: second }),
  ];
}

async function assertRateLimited(answer: Response, limit: "address" | "account"): Promise<void> {
  assert.equal(answer.status, 429);
  assert.match(answer.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
  const body = await answer.json();
  assert.equal(body.error.code, "rate_limited");
  assert.equal(body.error.details.limit, limit);
}

/** A forged answer (a well-formed one, signed by another key) for `passkey`, from `fetcher`'s address. */
async function failOnce(fetcher: Fetcher, passkey: SoftPasskey): Promise<Response> {
  const { browser, csrf } = await signInVisitor(fetcher);
  const challenge = await signInChallenge(browser, fetcher, csrf);
  return await sendSignIn(browser, fetcher, csrf, await forgedAnswer(passkey, challenge));
}

adapterTest(
  "racing sign-in requests of one address on two instances: exactly the limit pass, then 429 with Retry-After",
  { needs: "concurrency" },
  async (adapter) => {
    const [a, b] = await twoInstances(adapter.storage, await adapter.openAnother());
    const fetchers = [fromAddress(a, "203.0.113.7"), fromAddress(b, "203.0.113.7")];
    const { browser, csrf } = await signInVisitor(fetchers[0]!);
    const answers = await Promise.all(
      Array.from(
        { length: perAddress.attempts + 6 },
        (_, i) => postJson(browser, fetchers[i % 2]!, csrf, OPTIONS, {}),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 200).length, perAddress.attempts, statuses.join());
    for (const answer of answers.filter((answer) => answer.status !== 200)) {
      await assertRateLimited(answer, "address");
    }
    // Another address is not slowed; the same one is let in again when the window ends.
    const other = await signInVisitor(fromAddress(b, "198.51.100.9"));
    assert.equal(
      (await postJson(other.browser, fromAddress(b, "198.51.100.9"), other.csrf, OPTIONS, {})).status,
      200,
    );
    assert.equal((await postJson(browser, fetchers[1]!, csrf, OPTIONS, {})).status, 429);
    // The same count covers the sign-in answer and the invitation's registration endpoints.
    for (
      const path of ["/dashboard/sign-in/passkey", "/dashboard/passkeys/register/options?invitation=x.y"]
    ) {
      await assertRateLimited(await postJson(browser, fetchers[0]!, csrf, path, {}), "address");
    }
    a.clock.advance(perAddress.windowMs);
    assert.equal((await postJson(browser, fetchers[1]!, csrf, OPTIONS, {})).status, 200);
  },
);

Deno.test("behind a trusted proxy the forwarded client is counted, not the proxy", async () => {
  await using service = await openTestService({ env: { ...ON, FGW_TRUSTED_PROXIES: "10.0.0.1" } });
  const viaProxy = fromAddress(service, "10.0.0.1");
  const as = (client: string): Fetcher => (path, init) => {
    const headers = new Headers(init?.headers);
    headers.set("x-forwarded-for", `${client}, 10.0.0.1`);
    return viaProxy(path, { ...init, headers });
  };
  const first = await signInVisitor(as("192.0.2.1"));
  for (let i = 0; i < perAddress.attempts; i++) {
    assert.equal((await postJson(first.browser, as("192.0.2.1"), first.csrf, OPTIONS, {})).status, 200);
  }
  await assertRateLimited(await postJson(first.browser, as("192.0.2.1"), first.csrf, OPTIONS, {}), "address");
  const second = await signInVisitor(as("192.0.2.2"));
  assert.equal((await postJson(second.browser, as("192.0.2.2"), second.csrf, OPTIONS, {})).status, 200);
});

adapterTest(
  "racing failed sign-ins to one account from one address on two instances: exactly the per-source limit verified",
  { needs: "concurrency" },
  async (adapter) => {
    const [a, b] = await twoInstances(adapter.storage, await adapter.openAnother());
    const orgId = await createOrg(a.request);
    const { passkey } = await memberWithPasskey(a, orgId, "owner");
    const attacker = [fromAddress(a, "203.0.113.66"), fromAddress(b, "203.0.113.66")];
    const { browser, csrf } = await signInVisitor(attacker[0]!);
    const tries = perAccount.perSource + 4;
    const challenges = [];
    for (let i = 0; i < tries; i++) challenges.push(await signInChallenge(browser, attacker[i % 2]!, csrf));
    const answers = await Promise.all(
      challenges.map(async (challenge, i) =>
        sendSignIn(browser, attacker[i % 2]!, csrf, await forgedAnswer(passkey, challenge))
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 401).length, perAccount.perSource, statuses.join());
    for (const answer of answers.filter((answer) => answer.status !== 401)) {
      await assertRateLimited(answer, "account");
    }
    // The member, from its own address, signs in all the same, on either instance.
    for (const fetcher of [fromAddress(a, "198.51.100.20"), fromAddress(b, "198.51.100.20")]) {
      assert.equal((await signInWithPasskey(fetcher, passkey)).response.status, 200);
    }
    // The attacker's address may try again once the window ends.
    a.clock.advance(perAccount.windowMs);
    assert.equal((await failOnce(attacker[1]!, passkey)).status, 401);
  },
);

Deno.test("successful sign-ins never count against the account", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { passkey } = await memberWithPasskey(service, orgId, "owner");
  const home = fromAddress(service, "198.51.100.30");
  for (let i = 0; i < perAccount.perSource + 2; i++) {
    assert.equal((await signInWithPasskey(home, passkey)).response.status, 200, `sign-in ${i + 1}`);
  }
});

Deno.test("an account attacked from many addresses: sources that failed are refused, the member is not", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { passkey } = await memberWithPasskey(service, orgId, "owner");
  const { passkey: otherPasskey } = await memberWithPasskey(service, orgId, "viewer");
  const sources = Array.from(
    { length: perAccount.failures },
    (_, i) => fromAddress(service, `192.0.2.${i + 1}`),
  );
  for (const source of sources) assert.equal((await failOnce(source, passkey)).status, 401);
  // Over the account's limit: a source that failed on it is refused before verifying anything.
  await assertRateLimited(await failOnce(sources[0]!, passkey), "account");
  const refused = await signInWithPasskey(sources[1]!, passkey);
  await assertRateLimited(refused.response, "account");
  // A source that never failed on the account is verified as ever: the member signs in, and a
  // forgery from a new address is still only refused as a forgery (then counts).
  assert.equal(
    (await signInWithPasskey(fromAddress(service, "198.51.100.40"), passkey)).response.status,
    200,
  );
  const fresh = fromAddress(service, "198.51.100.41");
  assert.equal((await failOnce(fresh, passkey)).status, 401);
  await assertRateLimited(await failOnce(fresh, passkey), "account");
  // Another account is not touched by this one's failures.
  assert.equal((await signInWithPasskey(sources[0]!, otherPasskey)).response.status, 200);
});
