import type { FieldProblem } from "../keys/key_form.ts";

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
