import assert from "node:assert/strict";
import { linkMessage, signInMessage } from "../../../actors/ceremony/mod.ts";
import { ADMIN_TOKEN, adminInit, createOrg } from "../../support/access.ts";
import { TestBrowser } from "../../support/dashboard.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import {
  answerChallenge,
  askChallenge,
  getPage,
  postPageForm,
  signChallenge,
} from "../../support/dashboard_miners.ts";
import { polkadotSigner } from "../../support/polkadot/polkadot_signer.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";

const ORIGIN = "http://localhost:8080";
const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };
const MINERS = "/dashboard/miners";

const alice = polkadotSigner("//Alice");
const bob = polkadotSigner("//Bob");

async function minersOf(service: TestService, orgId: string) {
  const view = await (await service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"))).json();
  return view.miners as { hotkey: string; linkedWithProof: boolean; boundMemberId: string | null }[];
}

async function auditOf(service: TestService, orgId: string) {
  const audit = await (await service.request(`/admin/v1/orgs/${orgId}/audit`, adminInit("GET"))).json();
  return audit.items as { action: string; subject: string; by: unknown; details: Record<string, unknown> }[];
}

async function memberIdOf(service: TestService, orgId: string, role: string): Promise<string> {
  const members = await service.storage.members.listMembers(orgId);
  return members.find((member) => member.role === role)!.id;
}

/** An owner of a new org who linked alice's hotkey with an extension's signature. */
async function linkedWorld() {
  const service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await memberBrowser(service, orgId, "owner");
  const issued = await askChallenge(service, owner, "link", alice.address);
  const linked = await answerChallenge(service, owner, "link", issued, alice);
  assert.equal(linked.status, 303);
  assert.equal(linked.location, MINERS);
  return { service, orgId, owner, issued };
}

Deno.test("an owner links a hotkey with an extension's signature of the exact link message", async () => {
  const { service, orgId, owner, issued } = await linkedWorld();
  await using _ = service;
  assert.equal(
    issued.message,
    linkMessage({ origin: ORIGIN, orgId, challenge: issued.challenge, hotkey: alice.address }),
  );
  assert.deepEqual(await minersOf(service, orgId), [
    {
      ...(await minersOf(service, orgId))[0],
      hotkey: alice.address,
      linkedWithProof: true,
      boundMemberId: null,
    },
  ]);
  const ownerId = await memberIdOf(service, orgId, "owner");
  const [entry] = await auditOf(service, orgId);
  assert.deepEqual([entry!.action, entry!.subject, entry!.by], [
    "hotkey.linked",
    alice.address,
    { kind: "member", memberId: ownerId },
  ]);
  const page = await getPage(service, owner, MINERS);
  assert.equal(page.status, 200);
  assert.match(page.html, new RegExp(`data-hotkey="${alice.address}"`));
  assert.match(page.html, /linked with proof/);
  const step2 = await postPageForm(service, owner, MINERS, `${MINERS}/link/challenge`, {
    hotkey: bob.address,
  });
  assert.match(
    step2.html,
    /<pre class="sign-text" id="link-command">deno task -q sign --message \$&#39;forecasting-gateway\/link\/v1\\n/,
  );
});

Deno.test("a replayed, late or badly signed link answer is the form again, 400, and links nothing", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await memberBrowser(service, orgId, "owner");
  const issued = await askChallenge(service, owner, "link", alice.address);
  const forged = await answerChallenge(service, owner, "link", issued, alice, {
    signature: bob.extensionSign(issued.message),
  });
  assert.equal(forged.status, 400);
  assert.match(forged.html, /<strong>signature<\/strong>/);
  // The refused answer used the challenge up: a good signature of it is refused now.
  const replayed = await answerChallenge(service, owner, "link", issued, alice);
  assert.equal(replayed.status, 400);
  assert.match(replayed.html, /<strong>challenge<\/strong>/);
  const late = await askChallenge(service, owner, "link", alice.address);
  service.clock.advance(5 * 60_000 + 1);
  const lateAnswer = await answerChallenge(service, owner, "link", late, alice);
  assert.equal(lateAnswer.status, 400);
  assert.match(lateAnswer.html, /<strong>challenge<\/strong>/);
  // Another session's challenge is refused too.
  const otherOwner = await memberBrowser(service, orgId, "owner");
  const theirs = await askChallenge(service, otherOwner, "link", alice.address);
  assert.equal((await answerChallenge(service, owner, "link", theirs, alice)).status, 400);
  assert.deepEqual(await minersOf(service, orgId), []);
  assert.ok(!(await auditOf(service, orgId)).some((entry) => entry.action.startsWith("hotkey.")));
});

Deno.test("bad link input is the form again, 400, naming the field", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await memberBrowser(service, orgId, "owner");
  const step1 = await postPageForm(service, owner, MINERS, `${MINERS}/link/challenge`, {
    hotkey: "not-a-hotkey",
  });
  assert.equal(step1.status, 400);
  assert.match(step1.html, /<strong>hotkey<\/strong>/);
  assert.match(step1.html, /id="link-hotkey-error"/);
  const issued = await askChallenge(service, owner, "link", alice.address);
  for (const [field, value] of [["signature", "0x1234"], ["hotkey", "5Nope"], ["challenge", "short"]]) {
    const answer = await answerChallenge(service, owner, "link", issued, alice, { [field!]: value! });
    assert.equal(answer.status, 400, field);
    assert.match(answer.html, new RegExp(`<strong>${field}</strong>`), field);
  }
  // A body off its schema uses up no challenge: the good answer still links.
  assert.equal((await answerChallenge(service, owner, "link", issued, alice)).status, 303);
});

Deno.test("a hotkey another organisation has is a 409 form error", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const other = await createOrg(service.request, "Other");
  await service.request(`/admin/v1/orgs/${other}/miners`, adminInit("POST", { hotkey: alice.address }));
  const owner = await memberBrowser(service, orgId, "owner");
  const answer = await signChallenge(service, owner, "link", alice);
  assert.equal(answer.status, 409);
  assert.match(answer.html, /Another organisation has this hotkey/);
  assert.deepEqual(await minersOf(service, orgId), []);
});

Deno.test("a viewer reads the page and gets 403 on every change; another org's hotkey is 404", async () => {
  const { service, orgId, owner } = await linkedWorld();
  await using _ = service;
  const other = await createOrg(service.request, "Other");
  await service.request(`/admin/v1/orgs/${other}/miners`, adminInit("POST", { hotkey: bob.address }));
  const viewer = await memberBrowser(service, orgId, "viewer");
  const page = await getPage(service, viewer, MINERS);
  assert.equal(page.status, 200);
  assert.match(page.html, new RegExp(`data-hotkey="${alice.address}"`));
  assert.doesNotMatch(page.html, /Get a link challenge/);
  for (
    const path of [
      `${MINERS}/link/challenge`,
      `${MINERS}/link`,
      `${MINERS}/${alice.address}/bind`,
      `${MINERS}/${alice.address}/unlink`,
    ]
  ) {
    assert.equal(
      (await postPageForm(service, viewer, MINERS, path, { hotkey: alice.address })).status,
      403,
      path,
    );
  }
  for (const action of ["bind", "unlink"]) {
    const answer = await postPageForm(service, owner, MINERS, `${MINERS}/${bob.address}/${action}`, {
      memberId: "",
    });
    assert.equal(answer.status, 404, action);
  }
  assert.equal((await minersOf(service, other)).length, 1);
  assert.equal((await minersOf(service, orgId)).length, 1);
});

Deno.test("bound to a viewer, the hotkey signs in as the viewer; unlinked, that session ends", async () => {
  const { service, orgId, owner } = await linkedWorld();
  await using _ = service;
  await memberBrowser(service, orgId, "viewer");
  const viewerId = await memberIdOf(service, orgId, "viewer");
  const badBind = await postPageForm(service, owner, MINERS, `${MINERS}/${alice.address}/bind`, {
    memberId: "x y",
  });
  assert.equal(badBind.status, 400);
  assert.match(badBind.html, /<strong>memberId<\/strong>/);
  const other = await createOrg(service.request, "Other");
  await memberBrowser(service, other, "owner");
  const strangerId = await memberIdOf(service, other, "owner");
  const stranger = await postPageForm(service, owner, MINERS, `${MINERS}/${alice.address}/bind`, {
    memberId: strangerId,
  });
  assert.equal(stranger.status, 400);
  assert.match(stranger.html, /<strong>memberId<\/strong>/);
  assert.equal((await minersOf(service, orgId))[0]!.boundMemberId, null);
  const bound = await postPageForm(service, owner, MINERS, `${MINERS}/${alice.address}/bind`, {
    memberId: viewerId,
  });
  assert.equal(bound.status, 303);
  assert.equal((await minersOf(service, orgId))[0]!.boundMemberId, viewerId);
  assert.deepEqual((await auditOf(service, orgId))[0]!.details, { memberId: viewerId });

  const browser = new TestBrowser();
  const issued = await askChallenge(service, browser, "signin", alice.address);
  assert.equal(
    issued.message,
    signInMessage({ origin: ORIGIN, challenge: issued.challenge, hotkey: alice.address }),
  );
  const signedIn = await answerChallenge(service, browser, "signin", issued, alice);
  assert.equal(signedIn.status, 303);
  assert.equal(signedIn.location, "/dashboard");
  const home = await getPage(service, browser, "/dashboard");
  assert.equal(home.status, 200);
  assert.match(home.html, /a viewer of this organisation/);
  const replay = await answerChallenge(service, new TestBrowser(), "signin", issued, alice);
  assert.equal(replay.status, 401);

  const unlinked = await postPageForm(service, owner, MINERS, `${MINERS}/${alice.address}/unlink`);
  assert.equal(unlinked.status, 303);
  const after = await getPage(service, browser, "/dashboard");
  assert.equal(after.status, 303);
  assert.equal(after.location, "/dashboard/sign-in");
  assert.deepEqual(await minersOf(service, orgId), []);
  assert.equal((await auditOf(service, orgId))[0]!.action, "hotkey.unlinked");
});

Deno.test("a hotkey registered without proof, or bound to nobody, never signs in, refused alike", async () => {
  const { service, orgId } = await linkedWorld();
  await using _ = service;
  await service.request(`/admin/v1/orgs/${orgId}/miners`, adminInit("POST", { hotkey: bob.address }));
  const refusals: string[] = [];
  for (const signer of [alice, bob]) {
    const browser = new TestBrowser();
    const answer = await signChallenge(service, browser, "signin", signer);
    assert.equal(answer.status, 401);
    refusals.push(/<li><strong>hotkey<\/strong>: ([^<]+)<\/li>/.exec(answer.html)?.[1] ?? "");
    assert.equal((await getPage(service, browser, "/dashboard")).status, 303);
  }
  assert.ok(refusals[0]!.length > 0);
  assert.equal(refusals[0], refusals[1]);
});

Deno.test("the miners' spend range is checked as the usage API checks it", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const viewer = await memberBrowser(service, orgId, "viewer");
  const good = await getPage(service, viewer, `${MINERS}?from=2026-01-01&to=2026-01-07&tz=UTC`);
  assert.equal(good.status, 200);
  assert.match(good.html, /No validator call was settled/);
  for (
    const [query, field] of [["from=2026-02-30&to=2026-03-01", "from"], [
      "from=2026-01-07&to=2026-01-01",
      "to",
    ], [
      "tz=Mars/Base",
      "tz",
    ]]
  ) {
    const bad = await getPage(service, viewer, `${MINERS}?${query}`);
    assert.equal(bad.status, 400, query);
    assert.match(bad.html, new RegExp(`id="spend-${field}-error"`), query);
  }
});

Deno.test("the extension script is a same-origin file the proof forms load", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await memberBrowser(service, orgId, "owner");
  const step2 = await postPageForm(service, owner, MINERS, `${MINERS}/link/challenge`, {
    hotkey: alice.address,
  });
  assert.match(step2.html, /<script src="\/dashboard\/assets\/hotkey.js" defer><\/script>/);
  assert.match(step2.html, /<button type="button" hidden="" data-extension-sign="true">/);
  const script = await service.request("/dashboard/assets/hotkey.js");
  assert.equal(script.status, 200);
  assert.match(script.headers.get("content-type") ?? "", /^text\/javascript/);
  assert.match(await script.text(), /injectedWeb3/);
});
