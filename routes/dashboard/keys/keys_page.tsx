import type { ApiKeySummary } from "../../../storage/api_key_store.ts";
import { API_KEY_SCOPES } from "../../../storage/api_key_store.ts";
import type { MemberRole } from "../../../storage/member_store.ts";
import { EmptyState, TableScroll } from "../../pages/kit/blocks.tsx";
import { utc } from "../../pages/kit/format.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import type { KeyFormValues } from "./key_form.ts";
import type { FieldProblem } from "../pages/form_problems.tsx";
import type { KeyFlash } from "./key_flash.ts";
import { FieldError, FormProblems, problemOf } from "../pages/form_problems.tsx";
import { ShownOnce } from "../pages/shown_once.tsx";
import { ColumnHeads } from "../pages/column_heads.tsx";

export interface KeysPageProps {
  orgName: string;
  role: MemberRole;
  keys: ApiKeySummary[];
  csrfToken: string;
  nowMs: number;
  /** The secret of the key just made or rotated: shown this once. */
  flash: KeyFlash | null;
  form: KeyFormValues;
  problems: FieldProblem[];
}

/** Active, revoked or expired, as of `nowMs`. */
function statusOf(key: ApiKeySummary, nowMs: number): string {
  if (key.revokedAt !== undefined) return "revoked";
  if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= nowMs) return "expired";
  return "active";
}

/** `GET /dashboard/keys`: the organisation's API keys; for an owner, the forms that change them. */
export function KeysPage(props: KeysPageProps) {
  const owner = props.role === "owner";
  return (
    <Layout title={`API keys · ${props.orgName}`} path="/dashboard/keys" wide>
      <h1>API keys of {props.orgName}</h1>
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
      {props.flash ? <SecretOnce flash={props.flash} /> : ""}
      {props.keys.length === 0
        ? (
          <EmptyState
            why="This organisation has no API key yet."
            next={owner ? "Create one below." : undefined}
          />
        )
        : <KeyTable {...props} owner={owner} />}
      {owner
        ? <CreateKeyForm {...props} />
        : <p>Only an owner of the organisation can create or change keys.</p>}
    </Layout>
  );
}

function SecretOnce(props: { flash: KeyFlash }) {
  return (
    <ShownOnce id="secret-once" heading="Your new API key" codeId="new-api-key" value={props.flash.apiKey}>
      Key {props.flash.keyId} was{" "}
      {props.flash.event}. Copy its secret now: it is shown this once and cannot be shown again.
    </ShownOnce>
  );
}

function KeyTable(props: KeysPageProps & { owner: boolean }) {
  return (
    <TableScroll label="API keys">
      <table>
        <caption>API keys, oldest first</caption>
        <ColumnHeads
          names={[
            "Name",
            "Key id",
            "Scopes",
            "Requests per minute",
            "Last used",
            "Status",
            props.owner && "Actions",
          ]}
        />
        <tbody>
          {props.keys.map((key) => {
            const status = statusOf(key, props.nowMs);
            return (
              <tr data-key-id={key.keyId}>
                <th scope="row">{key.name}</th>
                <td>
                  <code>{key.keyId}</code>
                </td>
                <td>{key.scopes.join(", ")}</td>
                <td>{key.rateLimitRpm}</td>
                <td>{key.lastUsedAt ? utc(key.lastUsedAt) : "never"}</td>
                <td>{status}</td>
                {props.owner
                  ? (
                    <td>
                      {status === "revoked"
                        ? ""
                        : <KeyActions keyId={key.keyId} csrfToken={props.csrfToken} />}
                    </td>
                  )
                  : ""}
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

function KeyActions(props: { keyId: string; csrfToken: string }) {
  return (
    <>
      <form method="post" action={`/dashboard/keys/${props.keyId}/rotate`}>
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <button type="submit" aria-label={`Rotate key ${props.keyId}`}>Rotate</button>
      </form>
      <form method="post" action={`/dashboard/keys/${props.keyId}/revoke`}>
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <button type="submit" aria-label={`Revoke key ${props.keyId}`}>Revoke</button>
      </form>
    </>
  );
}

function CreateKeyForm(props: KeysPageProps) {
  const { form, problems } = props;
  const textField = (
    name: "name" | "rateLimitRpm" | "pinnedMinerHotkey" | "expiresAt",
    label: string,
    type = "text",
  ) => {
    const problem = problemOf(problems, name);
    return (
      <p>
        <label for={`key-${name}`}>{label}</label>
        <input
          id={`key-${name}`}
          name={name}
          type={type}
          value={form[name]}
          aria-invalid={problem ? "true" : undefined}
          aria-describedby={problem ? `key-${name}-error` : undefined}
        />
        <FieldError id={`key-${name}-error`} problem={problem} />
      </p>
    );
  };
  const scopesProblem = problemOf(problems, "scopes");
  return (
    <section aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <FormProblems problems={problems} what="The key was not created" />
      <form method="post" action="/dashboard/keys">
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        {textField("name", "Name")}
        <fieldset aria-describedby={scopesProblem ? "key-scopes-error" : undefined}>
          <legend>Scopes</legend>
          {API_KEY_SCOPES.map((scope) => (
            <p>
              <input
                type="checkbox"
                id={`key-scope-${scope.replace(":", "-")}`}
                name="scopes"
                value={scope}
                checked={form.scopes.includes(scope)}
              />
              <label for={`key-scope-${scope.replace(":", "-")}`}>{scope}</label>
            </p>
          ))}
          <FieldError id="key-scopes-error" problem={scopesProblem} />
        </fieldset>
        {textField("rateLimitRpm", "Requests per minute", "number")}
        {textField("pinnedMinerHotkey", "Pinned miner hotkey (optional)")}
        {textField("expiresAt", "Expires at, UTC (optional)", "datetime-local")}
        <p>
          <button type="submit">Create the key</button>
        </p>
      </form>
    </section>
  );
}
