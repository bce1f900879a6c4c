import { ServiceError } from "../../../actors/kernel/mod.ts";

/** A refused field: its form name and what is wrong. */
export interface FieldProblem {
  field: string;
  problem: string;
}

/** True for a 400 whose refused fields a page can show next to its form. */
export function isFormRefusal(error: unknown): error is ServiceError {
  return error instanceof ServiceError && error.code === "invalid_request";
}

/** The refused fields of a 400, by form field name (`scopes.1` is `scopes`). */
export function fieldProblemsOf(error: ServiceError): FieldProblem[] {
  const fields = error.details?.["fields"];
  if (!Array.isArray(fields)) return [{ field: "", problem: error.message }];
  return fields.map((entry: { field: string; problem: string }) => ({
    field: entry.field.split(".")[0] ?? "",
    problem: entry.problem,
  }));
}

/** The problem of the field `name`, if it was refused. */
export function problemOf(problems: readonly FieldProblem[], name: string): string | undefined {
  return problems.find((entry) => entry.field === name)?.problem;
}

/** The problem next to its field (`id` is what the field's `aria-describedby` names). */
export function FieldError(props: { id: string; problem: string | undefined }) {
  return props.problem ? <p class="field-error" id={props.id}>{props.problem}</p> : "";
}

/** The refused fields of a form, each named, above it. */
export function FormProblems(props: { problems: readonly FieldProblem[]; what: string }) {
  if (props.problems.length === 0) return "";
  return (
    <div role="alert">
      <p>{props.what}. Fix these fields:</p>
      <ul>
        {props.problems.map((entry) => (
          <li>
            <strong>{entry.field}</strong>: {entry.problem}
          </li>
        ))}
      </ul>
    </div>
  );
}
