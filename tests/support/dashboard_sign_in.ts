import { joiningMemberId, openInvitation, parseSecretToken } from "../../actors/identity/mod.ts";
import type { AuthenticationResponse } from "../../actors/ceremony/mod.ts";
import type { MemberRole } from "../../storage/member_store.ts";
import { adminInit } from "./access.ts";
import { type Fetcher, ORIGIN, TestBrowser } from "./dashboard.ts";
import { SoftPasskey } from "./soft_passkey.ts";
import type { TestService } from "./test_service.ts";

/** The service's `fetch` as a client at `address` would reach it (`Deno.serve`'s `remoteAddr`). */
export function fromAddress(service: TestService, address: string): Fetcher {
  const remoteAddr = { hostname: address, port: 40_000, transport: "tcp" };
  return (path, init) => service.app.request(path, init, { remoteAddr });
}

/** A new member of `orgId` with `role` whose one passkey is `SoftPasskey` (the member's id with it). */
export async function memberWithPasskey(
  service: TestService,
  orgId: string,
  role: MemberRole,
): Promise<{ memberId: string; passkey: SoftPasskey }> {
  const invited = await service.request(`/admin/v1/orgs/${orgId}/invitations`, adminInit("POST", { role }));
  const token = new URL((await invited.json()).link).pathname.split("/").at(-1)!;
  const invitation = (await openInvitation(service.storage.members, token, service.clock.now()))!;
  const passkey = await SoftPasskey.create(joiningMemberId(invitation));
  const { member } = await service.dashboard.askMembership(orgId, {
    type: "accept",
    invitationId: invitation.id,
    secret: parseSecretToken(token)!.secret,
    displayName: role,
    credential: {
      credentialId: passkey.credentialId,
      publicKey: await passkey.publicKeyCose(),
      signCount: 0,
      transports: ["internal"],
      createdAtMs: service.clock.now(),
    },
  });
  return { memberId: member.id, passkey };
}

/** A signed-out browser on the sign-in page: its pre-session cookie and the page's CSRF token. */
export async function signInVisitor(fetcher: Fetcher): Promise<{ browser: TestBrowser; csrf: string }> {
  const browser = new TestBrowser();
  const page =
    await (await browser.fetch(fetcher, "/dashboard/sign-in", { headers: { accept: "text/html" } }))
      .text();
  const csrf = /data-csrf="([^"]+)"/.exec(page)?.[1];
  if (csrf === undefined) throw new Error("The sign-in page carries no CSRF token");
  return { browser, csrf };
}

/** POSTs JSON to a dashboard endpoint as the browser's passkey script does. */
export function postJson(
  browser: TestBrowser,
  fetcher: Fetcher,
  csrf: string,
  path: string,
  body: unknown,
): Promise<Response> {
  return browser.fetch(fetcher, path, {
    method: "POST",
    headers: { origin: ORIGIN, "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify(body),
  });
}

/** The sign-in options' challenge for this browser. */
export async function signInChallenge(browser: TestBrowser, fetcher: Fetcher, csrf: string): Promise<string> {
  const answer = await postJson(browser, fetcher, csrf, "/dashboard/sign-in/passkey/options", {});
  if (answer.status !== 200) throw new Error(`Sign-in options answered ${answer.status}`);
  return (await answer.json()).challenge;
}

/** Sends a sign-in answer. */
export function sendSignIn(
  browser: TestBrowser,
  fetcher: Fetcher,
  csrf: string,
  response: AuthenticationResponse,
): Promise<Response> {
  return postJson(browser, fetcher, csrf, "/dashboard/sign-in/passkey", { response });
}

/** Signs `passkey` in through the real endpoints (options, then its answer); answers the last answer. */
export async function signInWithPasskey(
  fetcher: Fetcher,
  passkey: SoftPasskey,
  visitor?: { browser: TestBrowser; csrf: string },
): Promise<{ response: Response; browser: TestBrowser }> {
  const { browser, csrf } = visitor ?? await signInVisitor(fetcher);
  const challenge = await signInChallenge(browser, fetcher, csrf);
  const response = await sendSignIn(browser, fetcher, csrf, await passkey.answer(challenge, ORIGIN));
  return { response, browser };
}

/** A well-formed answer naming `passkey`'s credential, signed by another key: refused with 401. */
export async function forgedAnswer(passkey: SoftPasskey, challenge: string): Promise<AuthenticationResponse> {
  const impostor = await SoftPasskey.create("someone");
  const answer = await impostor.answer(challenge, ORIGIN);
  const userHandle = (await passkey.answer(challenge, ORIGIN)).response.userHandle;
  return {
    ...answer,
    id: passkey.credentialId,
    rawId: passkey.credentialId,
    response: { ...answer.response, userHandle },
  };
}
