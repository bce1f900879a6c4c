import type { InvitationRecord, MemberRecord, MemberRole } from "../../../storage/member_store.ts";
import { TableScroll } from "../../pages/kit/blocks.tsx";
import { shortKey, utc } from "../../pages/kit/format.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import { ShownOnce } from "../pages/shown_once.tsx";
import type { MemberFormProblem } from "./member_form.ts";
import { ColumnHeads } from "../pages/column_heads.tsx";

/** An invitation's link, shown once on the page the POST that made it redirects to. */
export interface LinkFlash {
  kind: "join" | "reenrol";
  role: MemberRole;
  /** The member a re-enrolment link is for. */
  memberName: string | null;
  link: string;
}

/** A member as the page lists it. */
export interface MemberRow {
  member: MemberRecord;
  /** How many passkeys it has (0: it signs in only with a bound hotkey, or after re-enrolment). */
  passkeys: number;
  /** The miner hotkeys bound to it (they sign in as this member). */
  hotkeys: string[];
}

export interface MembersPageProps {
  orgName: string;
  me: MemberRecord;
  rows: MemberRow[];
  invitations: InvitationRecord[];
  csrfToken: string;
  flash: LinkFlash | null;
  refused: MemberFormProblem | null;
}

const ROLE_WORDS: Record<MemberRole, string> = { owner: "owner", viewer: "viewer" };

/** `GET /dashboard/members`: members and open invitations; for an owner, the forms that change them. */
export function MembersPage(props: MembersPageProps) {
  const owner = props.me.role === "owner";
  return (
    <Layout title={`Members · ${props.orgName}`} path="/dashboard/members">
      <h1>Members of {props.orgName}</h1>
      <p>
        <a href="/dashboard">Back to the dashboard</a> · <a href="/dashboard/passkeys">Your passkeys</a>
        {owner
          ? (
            <>
              {" · "}
              <a href="/dashboard/audit">Audit log</a>
            </>
          )
          : ""}
      </p>
      {props.flash ? <LinkOnce flash={props.flash} /> : ""}
      {props.refused ? <Refused refused={props.refused} rows={props.rows} /> : ""}
      <MemberTable {...props} owner={owner} />
      <InvitationTable {...props} owner={owner} />
      {owner
        ? <InviteForm {...props} />
        : <p>Only an owner of the organisation can invite, change or remove members.</p>}
    </Layout>
  );
}

function LinkOnce(props: { flash: LinkFlash }) {
  const { flash } = props;
  return (
    <ShownOnce
      id="link-once"
      heading={flash.kind === "join" ? "Invitation link" : "Re-enrolment link"}
      codeId="invitation-link"
      value={flash.link}
    >
      {flash.kind === "join"
        ? `This link makes a new ${ROLE_WORDS[flash.role]}. `
        : `This link gives ${flash.memberName ?? "the member"} a new passkey. `}
      Copy it now and send it to the person it is for: it is shown this once, works once, and expires in 24
      hours.
    </ShownOnce>
  );
}

function Refused(props: { refused: MemberFormProblem; rows: MemberRow[] }) {
  const about = props.rows.find((row) => row.member.id === props.refused.form)?.member.displayName;
  return (
    <div role="alert" id="members-refused">
      <p>
        {props.refused.form === "invite"
          ? "The invitation was not made."
          : `Nothing was changed for ${about ?? "the member"}.`}
      </p>
      <ul>
        {props.refused.problems.map((entry) => (
          <li>
            {entry.field
              ? (
                <>
                  <strong>{entry.field}</strong>:{" "}
                </>
              )
              : ""}
            {entry.problem}
          </li>
        ))}
      </ul>
    </div>
  );
}

function MemberTable(props: MembersPageProps & { owner: boolean }) {
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <TableScroll label="Members">
        <table>
          <caption>Members, oldest first</caption>
          <ColumnHeads
            names={["Name", "Role", "Joined", "Passkeys", "Bound hotkeys", props.owner && "Actions"]}
          />
          <tbody>
            {props.rows.map((row) => (
              <tr data-member-id={row.member.id}>
                <th scope="row">
                  {row.member.displayName}
                  {row.member.id === props.me.id ? " (you)" : ""}
                </th>
                <td>{row.member.role}</td>
                <td>{utc(row.member.createdAtMs)}</td>
                <td>{row.passkeys}</td>
                <td>
                  {row.hotkeys.length === 0
                    ? "none"
                    : row.hotkeys.map((hotkey) => <code title={hotkey}>{shortKey(hotkey)}</code>)}
                </td>
                {props.owner
                  ? (
                    <td>
                      <MemberActions
                        row={row}
                        csrfToken={props.csrfToken}
                        problem={props.refused?.form === row.member.id ? props.refused : null}
                      />
                    </td>
                  )
                  : ""}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

function MemberActions(props: { row: MemberRow; csrfToken: string; problem: MemberFormProblem | null }) {
  const { member } = props.row;
  const name = member.displayName;
  const errorId = `member-${member.id}-error`;
  const problem = props.problem?.problems[0]?.problem;
  return (
    <>
      <form method="post" action={`/dashboard/members/${member.id}/role`}>
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <select
          name="role"
          aria-label={`Role of ${name}`}
          aria-invalid={problem ? "true" : undefined}
          aria-describedby={problem ? errorId : undefined}
        >
          <option value="owner" selected={member.role === "owner"}>owner</option>
          <option value="viewer" selected={member.role === "viewer"}>viewer</option>
        </select>
        <button type="submit" aria-label={`Change role of ${name}`}>Change role</button>
      </form>
      <form method="post" action={`/dashboard/members/${member.id}/remove`}>
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <button type="submit" aria-label={`Remove ${name}`}>Remove</button>
      </form>
      <form method="post" action={`/dashboard/members/${member.id}/reenrol`}>
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <button type="submit" aria-label={`Re-enrolment link for ${name}`}>Re-enrolment link</button>
      </form>
      {problem ? <p class="field-error" id={errorId}>{problem}</p> : ""}
    </>
  );
}

function InvitationTable(props: MembersPageProps & { owner: boolean }) {
  const nameOf = (memberId: string | null) =>
    props.rows.find((row) => row.member.id === memberId)?.member.displayName ?? "a removed member";
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Open invitations</h2>
      {props.invitations.length === 0
        ? <p>No invitation is waiting to be accepted.</p>
        : (
          <TableScroll label="Open invitations">
            <table>
              <caption>Invitations not yet used or expired, oldest first</caption>
              <ColumnHeads names={["Invitation", "Role", "Made", "Expires", props.owner && "Actions"]} />
              <tbody>
                {props.invitations.map((invitation) => (
                  <tr data-invitation-id={invitation.id}>
                    <th scope="row">
                      {invitation.kind === "join"
                        ? `A new ${ROLE_WORDS[invitation.role]}`
                        : `Re-enrolment of ${nameOf(invitation.memberId)}`}
                    </th>
                    <td>{invitation.role}</td>
                    <td>{utc(invitation.createdAtMs)}</td>
                    <td>{utc(invitation.expiresAtMs)}</td>
                    {props.owner
                      ? (
                        <td>
                          <form
                            method="post"
                            action={`/dashboard/members/invitations/${invitation.id}/revoke`}
                          >
                            <input type="hidden" name="_csrf" value={props.csrfToken} />
                            <button type="submit" aria-label={`Revoke invitation ${invitation.id}`}>
                              Revoke
                            </button>
                          </form>
                        </td>
                      )
                      : ""}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
    </section>
  );
}

function InviteForm(props: MembersPageProps) {
  const problem = props.refused?.form === "invite"
    ? props.refused.problems.find((entry) => entry.field === "role")?.problem
    : undefined;
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a member</h2>
      <form method="post" action="/dashboard/members/invitations">
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <div>
          <label for="invite-role">Role</label>{" "}
          <select
            id="invite-role"
            name="role"
            aria-invalid={problem ? "true" : undefined}
            aria-describedby={problem ? "invite-role-error" : undefined}
          >
            <option value="viewer">viewer: reads only</option>
            <option value="owner">owner: everything</option>
          </select>
          {problem ? <p class="field-error" id="invite-role-error">{problem}</p> : ""}
        </div>
        <p>
          <button type="submit">Make an invitation link</button>
        </p>
      </form>
    </section>
  );
}
