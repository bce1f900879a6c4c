/**
 * Every route of the dashboard, keyed "METHOD path" exactly as the router lists it, with what the
 * router-enumerated checks (route_checks_test.ts) need: who may use it, and the requests that try
 * it for the member's own organisation and for another's. A route missing here fails those checks:
 * add it when adding the route.
 */
import type { AuditAction } from "../../../storage/audit_store.ts";
import { adminInit, createOrg, issueKey } from "../../support/access.ts";
import type { TestBrowser } from "../../support/dashboard.ts";
import { joinedMember } from "../../support/dashboard_member.ts";
import { askChallenge, signChallenge } from "../../support/dashboard_miners.ts";
import { credentialOf } from "../../support/identity.ts";
import { type PolkadotSigner, polkadotSigner } from "../../support/polkadot/polkadot_signer.ts";
import type { TestService } from "../../support/test_service.ts";

/** One organisation of the checks' world, with a resource of each kind. */
export interface WorldOrg {
  orgId: string;
  keyId: string;
  /** An invitation not used yet: its id and its link's token. */
  invitationId: string;
  invitationToken: string;
  owner: TestBrowser;
  viewer: TestBrowser;
  ownerId: string;
  viewerId: string;
  /** A third member (a viewer, no browser): the one an owner changes, re-enrols and removes. */
  memberId: string;
  /** The owner's passkeys: the one it joined with and a second one (it may remove that). */
  ownerCredentialId: string;
  spareCredentialId: string;
  viewerCredentialId: string;
  /** A miner hotkey the owner linked with a signature, bound to nobody. */
  hotkey: string;
}

/** Two organisations: the member's own (`own`) and another (`other`). */
export interface World {
  service: TestService;
  own: WorldOrg;
  other: WorldOrg;
  /** A link proof of a hotkey nobody has, signed for a challenge issued to `own.owner`'s session. */
  link: { hotkey: string; challenge: string; signature: string };
}

/** A request of the checks: a path (with its query) and a body, a form's fields or JSON. */
export interface Probe {
  path: string;
  form?: [string, string][];
  json?: unknown;
}

/**
 * Who may use a route. `owner`: an owner's action; a viewer's is 403 `insufficient_role`.
 * `member` and `public` (signed out too): the reason any member, or anyone, may.
 */
export type Access = { kind: "owner" } | { kind: "member"; reason: string } | {
  kind: "public";
  reason: string;
};

/** A request with bad input, and the field the form shown again names. */
export interface BadInput {
  probe(world: World): Probe;
  field: string;
}

export interface RouteCase {
  access: Access;
  /** The request for the member's own organisation (for a page: what its owner would open). */
  own(world: World): Probe;
  /**
   * For a route with a path parameter: the same request naming the other organisation's resource
   * (404 expected; several when a resource of the member's own organisation is not its either),
   * or why the parameter names nothing of an organisation.
   */
  foreign?: ((world: World) => Probe | Probe[]) | { none: string };
  /**
   * For a state-changing route: the audit entry its change writes (checked by making the change as
   * an owner), or why it writes none or where that entry is tested.
   */
  audit?: AuditAction | { none: string };
  /**
   * For a state-changing route: requests with bad input and the field each names (the form shown
   * again, 400, nothing saved), or why the route takes no input a member types.
   */
  badInput?: BadInput | BadInput[] | { none: string };
}

const NO_FIELDS = { none: "no field a member types" };
const CEREMONY_BODY = {
  none:
    "the browser's passkey script sends it; a body off its schema is 400 naming the field (tests/dashboard/ceremony/passkey_routes_test.ts)",
};

const OWNER_ONLY: Access = { kind: "owner" };
const KEY_FORM: [string, string][] = [["name", "CI"], ["scopes", "billing:read"], ["rateLimitRpm", "30"]];
const CEREMONY = "a sign-in ceremony's step: it is how a browser signs in, so it needs no member";

export const DASHBOARD_ROUTES: Record<string, RouteCase> = {
  "GET /dashboard": {
    access: { kind: "member", reason: "the home page" },
    own: () => ({ path: "/dashboard" }),
  },
  "GET /dashboard/sign-in": {
    access: { kind: "public", reason: "the sign-in page" },
    own: () => ({ path: "/dashboard/sign-in" }),
  },
  "GET /dashboard/assets/passkey.js": {
    access: { kind: "public", reason: "the passkey script of the sign-in and invitation pages" },
    own: () => ({ path: "/dashboard/assets/passkey.js" }),
  },
  "GET /dashboard/invitations/:token": {
    access: { kind: "public", reason: "an invitation link is opened before its member exists" },
    own: (world) => ({ path: `/dashboard/invitations/${world.own.invitationToken}` }),
    foreign: {
      none:
        "a bearer link: whoever holds it may open it, signed in or not, and it shows only what accepting does",
    },
  },
  "POST /dashboard/sign-out": {
    access: { kind: "member", reason: "every member may end its own session" },
    own: () => ({ path: "/dashboard/sign-out", form: [] }),
    audit: { none: "ends the member's own session; the organisation is not changed" },
    badInput: NO_FIELDS,
  },
  "GET /dashboard/keys": {
    access: { kind: "member", reason: "a viewer reads the keys" },
    own: () => ({ path: "/dashboard/keys" }),
  },
  "POST /dashboard/keys": {
    access: OWNER_ONLY,
    own: () => ({ path: "/dashboard/keys", form: KEY_FORM }),
    audit: "key.issued",
    badInput: {
      probe: () => ({ path: "/dashboard/keys", form: [["name", ""], ...KEY_FORM.slice(1)] }),
      field: "name",
    },
  },
  "POST /dashboard/keys/:keyId/rotate": {
    access: OWNER_ONLY,
    own: (world) => ({ path: `/dashboard/keys/${world.own.keyId}/rotate`, form: [] }),
    foreign: (world) => ({ path: `/dashboard/keys/${world.other.keyId}/rotate`, form: [] }),
    audit: "key.rotated",
    badInput: NO_FIELDS,
  },
  "POST /dashboard/keys/:keyId/revoke": {
    access: OWNER_ONLY,
    own: (world) => ({ path: `/dashboard/keys/${world.own.keyId}/revoke`, form: [] }),
    foreign: (world) => ({ path: `/dashboard/keys/${world.other.keyId}/revoke`, form: [] }),
    audit: "key.revoked",
    badInput: NO_FIELDS,
  },
  "POST /dashboard/passkeys/register/options": {
    access: { kind: "public", reason: "accepting an invitation: the link's token is the credential" },
    own: (world) => ({
      path: `/dashboard/passkeys/register/options?invitation=${world.own.invitationToken}`,
      json: {},
    }),
    audit: { none: "issues a challenge only" },
    badInput: CEREMONY_BODY,
  },
  "POST /dashboard/passkeys/register": {
    access: { kind: "public", reason: "accepting an invitation: the link's token is the credential" },
    own: (world) => ({
      path: `/dashboard/passkeys/register?invitation=${world.own.invitationToken}`,
      json: {},
    }),
    audit: {
      none:
        "accepting writes member.joined (or member.reenrolled) and the passkey in one write: tests/identity/membership_actor_test.ts",
    },
    badInput: CEREMONY_BODY,
  },
  "POST /dashboard/sign-in/passkey/options": {
    access: { kind: "public", reason: CEREMONY },
    own: () => ({ path: "/dashboard/sign-in/passkey/options", json: {} }),
    audit: { none: "issues a challenge only" },
    badInput: CEREMONY_BODY,
  },
  "POST /dashboard/sign-in/passkey": {
    access: { kind: "public", reason: CEREMONY },
    own: () => ({ path: "/dashboard/sign-in/passkey", json: {} }),
    audit: { none: "a sign-in changes no organisation: it starts a session" },
    badInput: CEREMONY_BODY,
  },
  "GET /dashboard/assets/hotkey.js": {
    access: { kind: "public", reason: "the hotkey extension script of the sign-in and miners pages" },
    own: () => ({ path: "/dashboard/assets/hotkey.js" }),
  },
  "GET /dashboard/assets/usage.js": {
    access: { kind: "public", reason: "the usage page's script (it fills in the browser's time zone)" },
    own: () => ({ path: "/dashboard/assets/usage.js" }),
  },
  "GET /dashboard/usage": {
    access: { kind: "member", reason: "a viewer reads the organisation's usage" },
    own: () => ({ path: "/dashboard/usage" }),
  },
  "GET /dashboard/usage.csv": {
    access: { kind: "member", reason: "a viewer downloads the usage it reads" },
    own: () => ({ path: "/dashboard/usage.csv" }),
  },
  "GET /dashboard/ledger": {
    access: { kind: "member", reason: "a viewer reads the ledger" },
    own: () => ({ path: "/dashboard/ledger" }),
  },
  "POST /dashboard/low-balance": {
    access: OWNER_ONLY,
    own: () => ({ path: "/dashboard/low-balance", form: [["threshold", "25"]] }),
    audit: "low_balance.set",
    badInput: [
      {
        probe: () => ({ path: "/dashboard/low-balance", form: [["threshold", "lots"]] }),
        field: "threshold",
      },
      { probe: () => ({ path: "/dashboard/low-balance", form: [["threshold", "-5"]] }), field: "threshold" },
    ],
  },
  "GET /dashboard/members": {
    access: { kind: "member", reason: "a viewer reads who the members are" },
    own: () => ({ path: "/dashboard/members" }),
  },
  "POST /dashboard/members/invitations": {
    access: OWNER_ONLY,
    own: () => ({ path: "/dashboard/members/invitations", form: [["role", "viewer"]] }),
    audit: "invitation.created",
    badInput: {
      probe: () => ({ path: "/dashboard/members/invitations", form: [["role", "admin"]] }),
      field: "role",
    },
  },
  "POST /dashboard/members/invitations/:invitationId/revoke": {
    access: OWNER_ONLY,
    own: (world) => ({ path: `/dashboard/members/invitations/${world.own.invitationId}/revoke`, form: [] }),
    foreign: (world) => ({
      path: `/dashboard/members/invitations/${world.other.invitationId}/revoke`,
      form: [],
    }),
    audit: "invitation.revoked",
    badInput: NO_FIELDS,
  },
  // In this order for the audit check: the member's role is changed, then a re-enrolment link
  // made for it, then it is removed.
  "POST /dashboard/members/:memberId/role": {
    access: OWNER_ONLY,
    own: (world) => ({ path: `/dashboard/members/${world.own.memberId}/role`, form: [["role", "owner"]] }),
    foreign: (world) => ({
      path: `/dashboard/members/${world.other.memberId}/role`,
      form: [["role", "owner"]],
    }),
    audit: "member.role_changed",
    badInput: {
      probe: (world) => ({
        path: `/dashboard/members/${world.own.memberId}/role`,
        form: [["role", "admin"]],
      }),
      field: "role",
    },
  },
  "POST /dashboard/members/:memberId/reenrol": {
    access: OWNER_ONLY,
    own: (world) => ({ path: `/dashboard/members/${world.own.memberId}/reenrol`, form: [] }),
    foreign: (world) => ({ path: `/dashboard/members/${world.other.memberId}/reenrol`, form: [] }),
    audit: "invitation.created",
    badInput: NO_FIELDS,
  },
  "POST /dashboard/members/:memberId/remove": {
    access: OWNER_ONLY,
    own: (world) => ({ path: `/dashboard/members/${world.own.memberId}/remove`, form: [] }),
    foreign: (world) => ({ path: `/dashboard/members/${world.other.memberId}/remove`, form: [] }),
    audit: "member.removed",
    badInput: NO_FIELDS,
  },
  "GET /dashboard/passkeys": {
    access: { kind: "member", reason: "every member lists its own passkeys" },
    own: () => ({ path: "/dashboard/passkeys" }),
  },
  "POST /dashboard/passkeys/:credentialId/remove": {
    access: { kind: "member", reason: "every member manages its own passkeys (and only its own)" },
    own: (world) => ({ path: `/dashboard/passkeys/${world.own.spareCredentialId}/remove`, form: [] }),
    // Another organisation's passkey, and another member's of the owner's own organisation.
    foreign: (world) => [
      { path: `/dashboard/passkeys/${world.other.ownerCredentialId}/remove`, form: [] },
      { path: `/dashboard/passkeys/${world.own.viewerCredentialId}/remove`, form: [] },
    ],
    audit: "passkey.removed",
    badInput: NO_FIELDS,
  },
  "GET /dashboard/audit": {
    access: OWNER_ONLY,
    own: () => ({ path: "/dashboard/audit" }),
  },
  "GET /dashboard/miners": {
    access: { kind: "member", reason: "a viewer reads the organisation's miners" },
    own: () => ({ path: "/dashboard/miners" }),
  },
  "POST /dashboard/miners/link/challenge": {
    access: OWNER_ONLY,
    own: (world) => ({ path: "/dashboard/miners/link/challenge", form: [["hotkey", world.link.hotkey]] }),
    audit: { none: "issues a challenge only" },
    badInput: {
      probe: () => ({ path: "/dashboard/miners/link/challenge", form: [["hotkey", "not-a-hotkey"]] }),
      field: "hotkey",
    },
  },
  "POST /dashboard/miners/link": {
    access: OWNER_ONLY,
    own: (world) => ({ path: "/dashboard/miners/link", form: Object.entries(world.link) }),
    audit: "hotkey.linked",
    // Off the schema, so the world's challenge is not used up.
    badInput: {
      probe: (world) => ({
        path: "/dashboard/miners/link",
        form: Object.entries({ ...world.link, signature: "0x1234" }),
      }),
      field: "signature",
    },
  },
  // In this order for the audit check: the hotkey is bound, then unlinked.
  "POST /dashboard/miners/:hotkey/bind": {
    access: OWNER_ONLY,
    own: (world) => ({
      path: `/dashboard/miners/${world.own.hotkey}/bind`,
      form: [["memberId", world.own.ownerId]],
    }),
    foreign: (world) => ({
      path: `/dashboard/miners/${world.other.hotkey}/bind`,
      form: [["memberId", world.own.ownerId]],
    }),
    audit: "hotkey.bound",
    badInput: [
      {
        probe: (world) => ({
          path: `/dashboard/miners/${world.own.hotkey}/bind`,
          form: [["memberId", "Bob"]],
        }),
        field: "memberId",
      },
      // Another organisation's member.
      {
        probe: (world) => ({
          path: `/dashboard/miners/${world.own.hotkey}/bind`,
          form: [["memberId", world.other.ownerId]],
        }),
        field: "memberId",
      },
    ],
  },
  "POST /dashboard/miners/:hotkey/unlink": {
    access: OWNER_ONLY,
    own: (world) => ({ path: `/dashboard/miners/${world.own.hotkey}/unlink`, form: [] }),
    foreign: (world) => ({ path: `/dashboard/miners/${world.other.hotkey}/unlink`, form: [] }),
    audit: "hotkey.unlinked",
    badInput: NO_FIELDS,
  },
  "POST /dashboard/sign-in/hotkey/challenge": {
    access: { kind: "public", reason: CEREMONY },
    own: (world) => ({ path: "/dashboard/sign-in/hotkey/challenge", form: [["hotkey", world.own.hotkey]] }),
    audit: { none: "issues a challenge only" },
    badInput: {
      probe: () => ({ path: "/dashboard/sign-in/hotkey/challenge", form: [["hotkey", "not-a-hotkey"]] }),
      field: "hotkey",
    },
  },
  "POST /dashboard/sign-in/hotkey": {
    access: { kind: "public", reason: CEREMONY },
    own: (world) => ({
      path: "/dashboard/sign-in/hotkey",
      form: Object.entries({ ...world.link, hotkey: world.own.hotkey }),
    }),
    audit: { none: "a sign-in changes no organisation: it starts a session" },
    badInput: {
      probe: (world) => ({
        path: "/dashboard/sign-in/hotkey",
        form: Object.entries({ ...world.link, hotkey: world.own.hotkey, signature: "0x1234" }),
      }),
      field: "signature",
    },
  },
};

/** What the world's own organisation, its key and members are called (default: plain names). */
export interface WorldNames {
  org: string;
  key: string;
  member: string;
}

/** An organisation with a key, an open invitation, an owner and a viewer signed in, a member, a linked hotkey. */
async function worldOrg(service: TestService, names: WorldNames, signer: PolkadotSigner): Promise<WorldOrg> {
  const orgId = await createOrg(service.request, names.org);
  const { keyId } = (await issueKey(service.request, orgId, { name: names.key })).key;
  const owner = await joinedMember(service, orgId, "owner", names.member);
  const viewer = await joinedMember(service, orgId, "viewer", names.member);
  const member = await joinedMember(service, orgId, "viewer", names.member);
  const spareCredentialId = `cred_spare_${owner.member.id}`;
  await service.dashboard.askMembership(orgId, {
    type: "addPasskey",
    memberId: owner.member.id,
    credential: credentialOf(spareCredentialId, service.clock.now()),
  });
  const invited = await (await service.request(
    `/admin/v1/orgs/${orgId}/invitations`,
    adminInit("POST", { role: "viewer" }),
  )).json();
  const invitationToken = new URL(invited.link).pathname.split("/").at(-1)!;
  const linked = await signChallenge(service, owner.browser, "link", signer);
  if (linked.status !== 303) throw new Error(`the world's hotkey was not linked: ${linked.status}`);
  return {
    orgId,
    keyId,
    invitationId: invited.invitation.id,
    invitationToken,
    owner: owner.browser,
    viewer: viewer.browser,
    ownerId: owner.member.id,
    viewerId: viewer.member.id,
    memberId: member.member.id,
    ownerCredentialId: owner.credentialId,
    spareCredentialId,
    viewerCredentialId: viewer.credentialId,
    hotkey: signer.address,
  };
}

export async function buildWorld(service: TestService, names?: WorldNames): Promise<World> {
  const own = await worldOrg(
    service,
    names ?? { org: "Own", key: "CI", member: "Ada" },
    polkadotSigner("//Alice"),
  );
  const other = await worldOrg(
    service,
    { org: "Other", key: "Other CI", member: "Bob" },
    polkadotSigner("//Bob"),
  );
  const newcomer = polkadotSigner("//Charlie");
  const issued = await askChallenge(service, own.owner, "link", newcomer.address);
  return {
    service,
    own,
    other,
    link: {
      hotkey: newcomer.address,
      challenge: issued.challenge,
      signature: newcomer.extensionSign(issued.message),
    },
  };
}
