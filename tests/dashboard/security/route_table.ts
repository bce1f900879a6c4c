/**
 * Every route of the dashboard, keyed "METHOD path" exactly as the router lists it, with what the
 * router-enumerated checks (route_checks_test.ts) need: who may use it, and the requests that try
 * it for the member's own organisation and for another's. A route missing here fails those checks:
 * add it when adding the route.
 */
import type { AuditAction } from "../../../storage/audit_store.ts";
import { adminInit, createOrg, issueKey } from "../../support/access.ts";
import type { TestBrowser } from "../../support/dashboard.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
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
}

/** Two organisations: the member's own (`own`) and another (`other`). */
export interface World {
  service: TestService;
  own: WorldOrg;
  other: WorldOrg;
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

export interface RouteCase {
  access: Access;
  /** The request for the member's own organisation (for a page: what its owner would open). */
  own(world: World): Probe;
  /**
   * For a route with a path parameter: the same request naming the other organisation's resource
   * (404 expected), or why the parameter names nothing of an organisation.
   */
  foreign?: ((world: World) => Probe) | { none: string };
  /**
   * For a state-changing route: the audit entry its change writes (checked by making the change as
   * an owner), or why it writes none or where that entry is tested.
   */
  audit?: AuditAction | { none: string };
  /**
   * For a state-changing route: a request with bad input and the field it names (the form shown
   * again, 400, nothing saved), or why the route takes no input a member types.
   */
  badInput?: { probe(world: World): Probe; field: string } | { none: string };
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
};

/** What the world's own organisation, its key and members are called (default: plain names). */
export interface WorldNames {
  org: string;
  key: string;
  member: string;
}

/** An organisation with a key, an open invitation, an owner and a viewer signed in. */
async function worldOrg(service: TestService, names: WorldNames): Promise<WorldOrg> {
  const orgId = await createOrg(service.request, names.org);
  const { keyId } = (await issueKey(service.request, orgId, { name: names.key })).key;
  const owner = await memberBrowser(service, orgId, "owner", names.member);
  const viewer = await memberBrowser(service, orgId, "viewer", names.member);
  const invited = await (await service.request(
    `/admin/v1/orgs/${orgId}/invitations`,
    adminInit("POST", { role: "viewer" }),
  )).json();
  const invitationToken = new URL(invited.link).pathname.split("/").at(-1)!;
  return { orgId, keyId, invitationId: invited.invitation.id, invitationToken, owner, viewer };
}

export async function buildWorld(service: TestService, names?: WorldNames): Promise<World> {
  return {
    service,
    own: await worldOrg(service, names ?? { org: "Own", key: "CI", member: "Ada" }),
    other: await worldOrg(service, { org: "Other", key: "Other CI", member: "Bob" }),
  };
}
