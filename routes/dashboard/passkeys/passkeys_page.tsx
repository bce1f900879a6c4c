import type { MemberRecord, PasskeyCredential } from "../../../storage/member_store.ts";
import { TableScroll } from "../../pages/kit/blocks.tsx";
import { utc } from "../../pages/kit/format.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import { PASSKEY_PATHS } from "../ceremony/passkey_routes.ts";
import { PasskeyButton } from "../pages/passkey_button.tsx";
import { ColumnHeads } from "../pages/column_heads.tsx";

export interface PasskeysPageProps {
  member: MemberRecord;
  passkeys: PasskeyCredential[];
  csrfToken: string;
  /** Why the last removal was refused. */
  refused: string | null;
}

/** A credential id short enough for a table cell (its whole text in the title). */
function shortId(credentialId: string): string {
  return credentialId.length <= 16 ? credentialId : `${credentialId.slice(0, 8)}…${credentialId.slice(-6)}`;
}

/** `GET /dashboard/passkeys`: the signed-in member's passkeys, a remove button each, and adding one. */
export function PasskeysPage(props: PasskeysPageProps) {
  const only = props.passkeys.length <= 1;
  return (
    <Layout title="Your passkeys" path="/dashboard/passkeys">
      <h1>Your passkeys</h1>
      <p>
        <a href="/dashboard">Back to the dashboard</a> · <a href="/dashboard/members">Members</a>
      </p>
      <p>
        Signed in as{" "}
        <strong>{props.member.displayName}</strong>. Each passkey signs you in from the device or password
        manager that holds it.
      </p>
      {props.refused ? <p class="field-error" role="alert" id="passkeys-refused">{props.refused}</p> : ""}
      {props.passkeys.length === 0
        ? <p>You have no passkey: you signed in with a hotkey. Add one below.</p>
        : (
          <TableScroll label="Your passkeys">
            <table>
              <caption>Your passkeys, oldest first</caption>
              <ColumnHeads names={["Passkey", "Added", "Last used", "Transports", "Actions"]} />
              <tbody>
                {props.passkeys.map((passkey) => (
                  <tr data-credential-id={passkey.credentialId}>
                    <th scope="row">
                      <code title={passkey.credentialId}>{shortId(passkey.credentialId)}</code>
                    </th>
                    <td>{utc(passkey.createdAtMs)}</td>
                    <td>{passkey.lastUsedAtMs === null ? "never" : utc(passkey.lastUsedAtMs)}</td>
                    <td>{passkey.transports.length === 0 ? "—" : passkey.transports.join(", ")}</td>
                    <td>
                      {only
                        ? "your only passkey: add another to remove it"
                        : (
                          <form method="post" action={`/dashboard/passkeys/${passkey.credentialId}/remove`}>
                            <input type="hidden" name="_csrf" value={props.csrfToken} />
                            <button
                              type="submit"
                              aria-label={`Remove passkey ${shortId(passkey.credentialId)}`}
                            >
                              Remove
                            </button>
                          </form>
                        )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      <h2>Add a passkey</h2>
      <p>
        Register a passkey on another device or password manager, so you can still sign in if you lose one.
      </p>
      <PasskeyButton
        ceremony="register"
        optionsUrl={`/dashboard${PASSKEY_PATHS.registrationOptions}`}
        verifyUrl={`/dashboard${PASSKEY_PATHS.register}`}
        csrfToken={props.csrfToken}
        label="Add a passkey"
        done="Passkey added."
      />
    </Layout>
  );
}
