/**
 * The hotkey sign-in behind its limits in the whole service: the form goes through the CSRF check
 * (which reads the body) and then the per-account limit (which reads the hotkey from the same
 * form), so a forged signature is refused with 401 and counted against the hotkey, and a good one
 * signs in.
 */
import assert from "node:assert/strict";
import { SIGN_IN_LIMITS } from "../../../routes/dashboard/sign_in_limits.ts";
import { ADMIN_TOKEN, createOrg } from "../../support/access.ts";
import { type Fetcher, ORIGIN, type TestBrowser } from "../../support/dashboard.ts";
import { joinedMember } from "../../support/dashboard_member.ts";
import { issuedOf, postPageForm, signChallenge } from "../../support/dashboard_miners.ts";
import { fromAddress, signInVisitor } from "../../support/dashboard_sign_in.ts";
import { type PolkadotSigner, polkadotSigner } from "../../support/polkadot/polkadot_signer.ts";
import { openTestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };
const alice = polkadotSigner("//Alice");
const bob = polkadotSigner("//Bob");

/** Posts the sign-in page's hotkey form to `path` as a signed-out browser at `fetcher`'s address. */
async function postSignInForm(
  fetcher: Fetcher,
  browser: TestBrowser,
  csrf: string,
  path: string,
  fields: Record<string, string>,
): Promise<Response> {
  return await browser.fetch(fetcher, path, {
    method: "POST",
    headers: { accept: "text/html", origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...fields, _csrf: csrf }),
  });
}

/** One hotkey sign-in from `fetcher`'s address: alice's hotkey, its challenge signed by `signer`. */
async function signInAs(fetcher: Fetcher, signer: PolkadotSigner): Promise<Response> {
  const { browser, csrf } = await signInVisitor(fetcher);
  const asked = await postSignInForm(fetcher, browser, csrf, "/dashboard/sign-in/hotkey/challenge", {
    hotkey: alice.address,
  });
  assert.equal(asked.status, 200);
  const issued = issuedOf(await asked.text(), "signin");
  return await postSignInForm(fetcher, browser, csrf, "/dashboard/sign-in/hotkey", {
    hotkey: alice.address,
    challenge: issued.challenge,
    signature: signer.extensionSign(issued.message),
  });
}

Deno.test("a hotkey sign-in form passes the CSRF check and the per-account limit: forged 401 then 429, good signs in", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await joinedMember(service, orgId, "owner");
  assert.equal((await signChallenge(service, owner.browser, "link", alice)).status, 303);
  const bound = await postPageForm(
    service,
    owner.browser,
    "/dashboard/miners",
    `/dashboard/miners/${alice.address}/bind`,
    { memberId: owner.member.id },
  );
  assert.equal(bound.status, 303);

  const attacker = fromAddress(service, "203.0.113.9");
  for (let i = 0; i < SIGN_IN_LIMITS.perAccount.perSource; i++) {
    assert.equal((await signInAs(attacker, bob)).status, 401, `forged answer ${i + 1}`);
  }
  const limited = await signInAs(attacker, bob);
  assert.equal(limited.status, 429);
  assert.equal((await limited.json()).error.details.limit, "account");

  const signedIn = await signInAs(fromAddress(service, "198.51.100.4"), alice);
  assert.equal(signedIn.status, 303);
  assert.equal(signedIn.headers.get("location"), "/dashboard");
});
