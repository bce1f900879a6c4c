import type { LeaseSpendReport } from "../../../actors/usage/mod.ts";
import type { AgentVersion } from "../../../storage/agent_store.ts";
import type { MemberRecord, MemberRole } from "../../../storage/member_store.ts";
import type { MinerRegistration } from "../../../storage/org_store.ts";
import { EmptyState, TableScroll } from "../../pages/kit/blocks.tsx";
import { count, utc } from "../../pages/kit/format.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import { HotkeySteps, type HotkeyStepState, Problems } from "./hotkey_steps.tsx";
import type { FieldProblem, SpendRange } from "./miner_forms.ts";
import { SpendSection } from "./miner_spend.tsx";
import { ColumnHeads } from "../pages/column_heads.tsx";

export const MINERS_PATH = "/dashboard/miners";

/** One hotkey of the organisation with what the service knows of it. */
export interface MinerRow {
  registration: MinerRegistration;
  isDefault: boolean;
  agents: { currentVersionId: string | null; versions: AgentVersion[] };
  /** Its predictions counted in the score table's window; null when the service knows nothing of it yet. */
  scoredPredictions: number | null;
}

export interface MinersPageProps {
  orgName: string;
  role: MemberRole;
  miners: MinerRow[];
  members: MemberRecord[];
  csrfToken: string;
  link: HotkeyStepState;
  /** A refused bind or unlink, shown above the table. */
  actionProblems: FieldProblem[];
  range: SpendRange;
  rangeProblems: FieldProblem[];
  /** Null when the range was refused. */
  spend: LeaseSpendReport | null;
}

/** `GET /dashboard/miners`: the organisation's hotkeys, their agents and predictions, their LLM spend. */
export function MinersPage(props: MinersPageProps) {
  const owner = props.role === "owner";
  return (
    <Layout title={`Miners · ${props.orgName}`} path={MINERS_PATH}>
      <h1>Miners of {props.orgName}</h1>
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
      <Problems what="Nothing was changed." problems={props.actionProblems} />
      {props.miners.length === 0
        ? (
          <EmptyState
            why="This organisation has no miner hotkey yet."
            next={owner ? "Link one below with a signed proof." : undefined}
          />
        )
        : <MinerTable {...props} />}
      {owner && props.miners.length > 0
        ? (
          <section aria-labelledby="change-hotkeys">
            <h2 id="change-hotkeys">Bind or unlink a hotkey</h2>
            <p>
              A hotkey linked with proof signs in as the member it is bound to, with that member's role.
              Unlinking a hotkey ends the sessions it signed in.
            </p>
            {props.miners.map((row) => <MinerActions {...props} row={row} />)}
          </section>
        )
        : ""}
      {owner
        ? (
          <section aria-labelledby="link-a-hotkey">
            <h2 id="link-a-hotkey">Link a hotkey</h2>
            <p>
              Prove the organisation holds a hotkey by signing a challenge with it. A linked hotkey can be
              bound to a member, and then signs in to the dashboard as that member.
            </p>
            <HotkeySteps
              id="link"
              state={props.link}
              csrfToken={props.csrfToken}
              challengeAction={`${MINERS_PATH}/link/challenge`}
              proofAction={`${MINERS_PATH}/link`}
              challengeLabel="Get a link challenge"
              proofLabel="Link the hotkey"
              what="The hotkey was not linked."
            />
          </section>
        )
        : <p>Only an owner of the organisation can link, bind or unlink hotkeys.</p>}
      <SpendSection {...props} path={MINERS_PATH} />
    </Layout>
  );
}

function MinerTable(props: MinersPageProps) {
  const nameOf = (memberId: string | null) =>
    memberId === null
      ? "nobody"
      : props.members.find((member) => member.id === memberId)?.displayName ?? memberId;
  return (
    <TableScroll label="Miner hotkeys">
      <table>
        <caption>Miner hotkeys</caption>
        <ColumnHeads
          names={["Hotkey", "Registered", "Default", "Signs in as", "Agent versions", "Scored predictions"]}
        />
        <tbody>
          {props.miners.map((row) => {
            const { hotkey, linkedWithProof, boundMemberId } = row.registration;
            return (
              <tr data-hotkey={hotkey}>
                <th scope="row">
                  <code class="hotkey">{hotkey}</code>
                </th>
                <td>
                  {linkedWithProof ? "linked with proof" : "by the operator"},<br />
                  {utc(row.registration.registeredAtMs)}
                </td>
                <td>{row.isDefault ? "yes" : "no"}</td>
                <td data-bound>{linkedWithProof ? nameOf(boundMemberId) : "nobody (no proof)"}</td>
                <td>
                  <AgentVersions agents={row.agents} />
                </td>
                <td>{row.scoredPredictions === null ? "none yet" : count(row.scoredPredictions)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

function AgentVersions(props: { agents: MinerRow["agents"] }) {
  const { versions, currentVersionId } = props.agents;
  if (versions.length === 0) return <>none</>;
  return (
    <ul>
      {versions.map((version) => (
        <li>
          <code>{version.versionId}</code>
          {version.name ? ` ${version.name}` : ""}, {utc(version.createdAtMs)}
          {version.versionId === currentVersionId ? " (current)" : ""}
        </li>
      ))}
    </ul>
  );
}

function MinerActions(props: MinersPageProps & { row: MinerRow }) {
  const { hotkey, linkedWithProof, boundMemberId } = props.row.registration;
  const path = `${MINERS_PATH}/${encodeURIComponent(hotkey)}`;
  const selectId = `bind-${hotkey}`;
  return (
    <div class="miner-actions" data-actions-for={hotkey}>
      <h3>
        <code class="hotkey">{hotkey}</code>
      </h3>
      <div class="form-actions">
        {linkedWithProof
          ? (
            <form method="post" action={`${path}/bind`}>
              <input type="hidden" name="_csrf" value={props.csrfToken} />
              <label for={selectId}>Signs in as</label>{" "}
              <select id={selectId} name="memberId">
                <option value="" selected={boundMemberId === null}>nobody</option>
                {props.members.map((member) => (
                  <option value={member.id} selected={member.id === boundMemberId}>
                    {member.displayName} ({member.role}, {member.id})
                  </option>
                ))}
              </select>{" "}
              <button type="submit" aria-label={`Bind hotkey ${hotkey}`}>Bind</button>
            </form>
          )
          : <p>Registered by the operator without proof: it never signs in. Link it to bind it.</p>}
        <form method="post" action={`${path}/unlink`}>
          <input type="hidden" name="_csrf" value={props.csrfToken} />
          <button type="submit" aria-label={`Unlink hotkey ${hotkey}`}>Unlink</button>
        </form>
      </div>
    </div>
  );
}
