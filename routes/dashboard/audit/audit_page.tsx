import type { AuditEntry } from "../../../storage/audit_store.ts";
import { TableScroll } from "../../pages/kit/blocks.tsx";
import { utc } from "../../pages/kit/format.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import { type NameOf, whatHappened, whoDid } from "./audit_words.ts";
import { ColumnHeads } from "../pages/column_heads.tsx";

export interface AuditPageProps {
  orgName: string;
  entries: AuditEntry[];
  nameOf: NameOf;
  /** The cursor of the next (older) page; null on the last page. */
  nextCursor: string | null;
  /** Whether this is a later page (a link back to the newest is shown). */
  paged: boolean;
}

/** `GET /dashboard/audit`: the organisation's audit log, newest first, a page at a time. */
export function AuditPage(props: AuditPageProps) {
  return (
    <Layout title={`Audit log · ${props.orgName}`} path="/dashboard/audit">
      <h1>Audit log of {props.orgName}</h1>
      <p>
        <a href="/dashboard">Back to the dashboard</a> · <a href="/dashboard/members">Members</a>
      </p>
      <p>
        Every change made to the organisation's members, passkeys and hotkeys, newest first. Times are UTC.
      </p>
      {props.entries.length === 0 ? <p>Nothing has been changed yet.</p> : (
        <TableScroll label="Audit log">
          <table>
            <caption>Audit log, newest first</caption>
            <ColumnHeads names={["When", "Who", "What", "Action"]} />
            <tbody>
              {props.entries.map((entry) => (
                <tr data-audit-id={entry.id}>
                  <td>
                    <time datetime={new Date(entry.atMs).toISOString()}>{utc(entry.atMs)}</time>
                  </td>
                  <th scope="row">{whoDid(entry, props.nameOf)}</th>
                  <td>{whatHappened(entry, props.nameOf)}</td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <nav aria-label="Audit log pages">
        <p>
          {props.paged ? <a href="/dashboard/audit">Newest entries</a> : ""}
          {props.paged && props.nextCursor ? " · " : ""}
          {props.nextCursor
            ? (
              <a href={`/dashboard/audit?cursor=${encodeURIComponent(props.nextCursor)}`} rel="next">
                Older entries
              </a>
            )
            : ""}
        </p>
      </nav>
    </Layout>
  );
}
