import type { LedgerEntry } from "../../../storage/billing_store.ts";
import { EmptyState, TableScroll } from "../../pages/kit/blocks.tsx";
import { utc } from "../../pages/kit/format.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import { creditAmount } from "../pages/credit_amount.ts";

export interface LedgerPageProps {
  orgName: string;
  entries: LedgerEntry[];
  /** The link to the next (older) page; null on the last. */
  olderHref: string | null;
  /** True on a page after the first (a link back to the newest is shown). */
  paged: boolean;
}

/** `GET /dashboard/ledger`: the organisation's ledger entries, newest first, a page at a time. */
export function LedgerPage(props: LedgerPageProps) {
  return (
    <Layout title={`Ledger · ${props.orgName}`} path="/dashboard/ledger" wide>
      <h1>Ledger of {props.orgName}</h1>
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
      <p>
        Every change of the balance: credits (top-ups by the operator) and debits (settled calls), newest
        first.
      </p>
      {props.entries.length === 0
        ? <EmptyState why={props.paged ? "No older entry." : "This organisation's ledger is empty."} />
        : <LedgerTable entries={props.entries} />}
      <nav aria-label="Ledger pages">
        <ul>
          {props.paged
            ? (
              <li>
                <a href="/dashboard/ledger">Newest entries</a>
              </li>
            )
            : ""}
          {props.olderHref
            ? (
              <li>
                <a href={props.olderHref} rel="next">Older entries</a>
              </li>
            )
            : ""}
        </ul>
      </nav>
    </Layout>
  );
}

function LedgerTable(props: { entries: LedgerEntry[] }) {
  return (
    <TableScroll label="Ledger entries">
      <table id="ledger-table">
        <caption>Ledger entries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Entry</th>
            <th scope="col">When</th>
            <th scope="col">Kind</th>
            <th scope="col" class="num">Amount (credits)</th>
            <th scope="col" class="num">Balance after (credits)</th>
            <th scope="col">Top-up reference or hold</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((entry) => (
            <tr data-seq={String(entry.seq)} data-amount-micro={entry.amountMicro.toString()}>
              <th scope="row">{entry.seq}</th>
              <td>{utc(entry.atMs)}</td>
              <td>{entry.kind}</td>
              <td class="num">{creditAmount(entry.amountMicro)}</td>
              <td class="num">{creditAmount(entry.balanceAfterMicro)}</td>
              <td>{entry.reference ?? (entry.holdId === null ? "—" : <code>{entry.holdId}</code>)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
