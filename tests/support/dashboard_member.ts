import { openInvitation, parseSecretToken } from "../../actors/identity/mod.ts";
import type { MemberRecord, MemberRole } from "../../storage/member_store.ts";
import { adminInit } from "./access.ts";
import { TestBrowser } from "./dashboard.ts";
import { credentialOf } from "./identity.ts";
import type { TestService } from "./test_service.ts";

/**
 * A new member of `orgId` with `role` (invited by the operator, accepted with a stored passkey
 * `cred_<invitation id>`), named `displayName` (its role when not given), and a browser signed in as it.
 */
export async function joinedMember(
  service: TestService,
  orgId: string,
  role: MemberRole,
  displayName: string = role,
): Promise<{ browser: TestBrowser; member: MemberRecord; credentialId: string }> {
  const invited = await service.request(`/admin/v1/orgs/${orgId}/invitations`, adminInit("POST", { role }));
  const token = new URL((await invited.json()).link).pathname.split("/").at(-1)!;
  const invitation = await openInvitation(service.storage.members, token, service.clock.now());
  const credentialId = `cred_${invitation!.id}`;
  const { member } = await service.dashboard.askMembership(orgId, {
    type: "accept",
    invitationId: invitation!.id,
    secret: parseSecretToken(token)!.secret,
    displayName,
    credential: credentialOf(credentialId, service.clock.now()),
  });
  const started = await service.dashboard.sessions.start(member.id, { kind: "passkey" });
  const browser = new TestBrowser();
  browser.cookies.set("__Host-fgw_session", started.token);
  return { browser, member, credentialId };
}

/** A browser signed in as a new member of `orgId` with `role` (invited by the operator, accepted). */
export async function memberBrowser(
  service: TestService,
  orgId: string,
  role: MemberRole,
  displayName: string = role,
): Promise<TestBrowser> {
  return (await joinedMember(service, orgId, role, displayName)).browser;
}
