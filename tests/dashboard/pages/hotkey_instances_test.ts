import assert from "node:assert/strict";
import { ManualClock } from "../../../actors/kernel/mod.ts";
import { ADMIN_TOKEN, createOrg } from "../../support/access.ts";
import { adapterTest } from "../../support/adapters.ts";
import { TestBrowser } from "../../support/dashboard.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import { getPage, postPageForm, signChallenge } from "../../support/dashboard_miners.ts";
import { polkadotSigner } from "../../support/polkadot/polkadot_signer.ts";
import { openTestService, TEST_START_MS } from "../../support/test_service.ts";

const env = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: "http://localhost:8080" };
const MINERS = "/dashboard/miners";
const alice = polkadotSigner("//Alice");

adapterTest(
  "a hotkey unlinked on one instance ends its session on the other at its next request",
  async (adapter) => {
    const clock = new ManualClock(TEST_START_MS);
    await using a = await openTestService({ env, clock, storage: adapter.storage });
    await using b = await openTestService({ env, clock, storage: await adapter.openAnother() });
    const orgId = await createOrg(a.request);
    const owner = await memberBrowser(a, orgId, "owner");
    await memberBrowser(a, orgId, "viewer");
    const viewerId = (await a.storage.members.listMembers(orgId)).find((m) => m.role === "viewer")!.id;
    const linked = await signChallenge(a, owner, "link", alice);
    assert.equal(linked.status, 303);
    const bound = await postPageForm(a, owner, MINERS, `${MINERS}/${alice.address}/bind`, {
      memberId: viewerId,
    });
    assert.equal(bound.status, 303);

    const browser = new TestBrowser();
    const signedIn = await signChallenge(b, browser, "signin", alice);
    assert.equal(signedIn.status, 303);
    assert.equal((await getPage(b, browser, "/dashboard")).status, 200);
    assert.equal((await getPage(a, browser, "/dashboard")).status, 200);

    assert.equal((await postPageForm(a, owner, MINERS, `${MINERS}/${alice.address}/unlink`)).status, 303);
    const after = await getPage(b, browser, "/dashboard");
    assert.deepEqual([after.status, after.location], [303, "/dashboard/sign-in"]);
  },
);
