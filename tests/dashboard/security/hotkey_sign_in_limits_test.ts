/**
 * The sign-in limits in front of the real hotkey sign-in route: answers refused for one hotkey
 * count against it and their source; past the source's limit the next answer is 429 before it is
 * verified, while another hotkey's sign-in is not slowed.
 */
import assert from "node:assert/strict";
import { SIGN_IN_LIMITS } from "../../../routes/dashboard/sign_in_limits.ts";
import { ADMIN_TOKEN, createOrg } from "../../support/access.ts";
import { TestBrowser } from "../../support/dashboard.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import { answerChallenge, askChallenge, postPageForm } from "../../support/dashboard_miners.ts";
import { polkadotSigner } from "../../support/polkadot/polkadot_signer.ts";
import { openTestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: "http://localhost:8080" };
const alice = polkadotSigner("//Alice");
const bob = polkadotSigner("//Bob");

Deno.test("failed hotkey sign-ins for one hotkey are refused 429 past the source's limit; another hotkey still signs in", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await memberBrowser(service, orgId, "owner");
  for (const signer of [alice, bob]) {
    const issued = await askChallenge(service, owner, "link", signer.address);
    assert.equal((await answerChallenge(service, owner, "link", issued, signer)).status, 303);
    const ownerId = (await service.storage.members.listMembers(orgId))[0]!.id;
    const bound = await postPageForm(
      service,
      owner,
      "/dashboard/miners",
      `/dashboard/miners/${signer.address}/bind`,
      {
        memberId: ownerId,
      },
    );
    assert.equal(bound.status, 303);
  }
  const { perSource } = SIGN_IN_LIMITS.perAccount;
  const attacker = new TestBrowser();
  const statuses: number[] = [];
  for (let attempt = 0; attempt <= perSource; attempt++) {
    const issued = await askChallenge(service, attacker, "signin", alice.address);
    // Bob signs Alice's sign-in message: a signature that does not verify for Alice's hotkey.
    const forged = await answerChallenge(service, attacker, "signin", issued, alice, {
      signature: bob.extensionSign(issued.message),
    });
    statuses.push(forged.status);
  }
  assert.deepEqual(statuses, [...Array(perSource).fill(401), 429]);

  const member = new TestBrowser();
  const issued = await askChallenge(service, member, "signin", bob.address);
  const signedIn = await answerChallenge(service, member, "signin", issued, bob);
  assert.equal(signedIn.status, 303, "another hotkey's sign-in is not slowed");
  assert.equal(signedIn.location, "/dashboard");
});
