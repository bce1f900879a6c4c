import type { LeaseSpendReport } from "../../../actors/usage/mod.ts";
import { EmptyState, TableScroll } from "../../pages/kit/blocks.tsx";
import { count } from "../../pages/kit/format.ts";
import { creditAmount } from "../pages/credit_amount.ts";
import { Problems } from "./hotkey_steps.tsx";
import type { FieldProblem, SpendRange } from "./miner_forms.ts";
import { ColumnHeads } from "../pages/column_heads.tsx";

/** What the spend section shows: the range form (its refused fields) and the report. */
export interface SpendSectionProps {
  /** Where the range form is sent (GET). */
  path: string;
  range: SpendRange;
  rangeProblems: FieldProblem[];
  /** Null when the range was refused. */
  spend: LeaseSpendReport | null;
}

/** The miners' LLM spend over a range of local days, by validator and by lease outcome. */
export function SpendSection(props: SpendSectionProps) {
  const field = (name: "from" | "to" | "tz", label: string, type: string) => {
    const problem = props.rangeProblems.find((entry) => entry.field === name)?.problem;
    return (
      <p>
        <label for={`spend-${name}`}>{label}</label>
        <input
          id={`spend-${name}`}
          name={name}
          type={type}
          value={props.range[name]}
          aria-invalid={problem ? "true" : undefined}
          aria-describedby={problem ? `spend-${name}-error` : undefined}
        />
        {problem ? <p class="field-error" id={`spend-${name}-error`}>{problem}</p> : ""}
      </p>
    );
  };
  return (
    <section aria-labelledby="miner-spend">
      <h2 id="miner-spend">LLM spend of the miners</h2>
      <p>
        What the validators' calls for these miners cost the organisation, settled in the range of local days,
        by validator and by what became of the lease each call was made for (the figures of{" "}
        <code>GET /v1/usage/leases</code>).
      </p>
      <Problems what="The range was not shown." problems={props.rangeProblems} />
      <form method="get" action={props.path}>
        {field("from", "First day", "date")}
        {field("to", "Last day", "date")}
        {field("tz", "Time zone (IANA name)", "text")}
        <p>
          <button type="submit">Show the spend</button>
        </p>
      </form>
      {props.spend ? <SpendTables spend={props.spend} /> : ""}
    </section>
  );
}

function SpendTables(props: { spend: LeaseSpendReport }) {
  const { spend } = props;
  if (spend.miners.length === 0) {
    return (
      <EmptyState why={`No validator call was settled for these miners from ${spend.from} to ${spend.to}.`} />
    );
  }
  return (
    <>
      <p data-spend-total={spend.totals.spendMicro.toString()}>
        In all: {creditAmount(spend.totals.spendMicro)} credits over {count(spend.totals.calls)} calls.
      </p>
      {spend.miners.map((miner) => {
        const name = miner.minerHotkey ?? "no miner";
        return (
          <>
            <h3>
              <code>{name}</code>: {creditAmount(miner.spendMicro)} credits
            </h3>
            <TableScroll label={`Spend of ${name} by validator`}>
              <table>
                <caption>By validator</caption>
                <ColumnHeads names={["Validator", "Spend (credits)", "Calls"]} />
                <tbody>
                  {miner.byValidator.map((each) => (
                    <tr>
                      <th scope="row">
                        <code>{each.validatorHotkey ?? "none"}</code>
                      </th>
                      <td data-spend-micro={each.spendMicro.toString()}>{creditAmount(each.spendMicro)}</td>
                      <td>{count(each.calls)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
            <TableScroll label={`Spend of ${name} by lease outcome`}>
              <table>
                <caption>By lease outcome</caption>
                <ColumnHeads names={["Outcome", "Leases", "Spend (credits)", "Calls"]} />
                <tbody>
                  {miner.byOutcome.map((each) => (
                    <tr>
                      <th scope="row">{each.outcome}</th>
                      <td>{count(each.leases)}</td>
                      <td data-spend-micro={each.spendMicro.toString()}>{creditAmount(each.spendMicro)}</td>
                      <td>{count(each.calls)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </>
        );
      })}
    </>
  );
}
