/** A form of a JSON route's query parameters: one labelled field per parameter, sent with GET. */

/** A field's input: a select of `options` (value, label; the first is usually "" for "any"), or a text box. */
export type FieldInput =
  | { kind: "select"; options: ReadonlyArray<readonly [string, string]> }
  | { kind: "text"; placeholder?: string; maxLength?: number }
  | { kind: "number"; min?: number; max?: number; step: number | "any"; placeholder?: string };

export interface FieldSpec {
  label: string;
  input: FieldInput;
}

export interface FilterFormProps {
  /** The page the form is sent to (its own path). */
  action: string;
  /** Unique on the page: the fields' ids derive from it. */
  id: string;
  /** The fields by parameter name, in the order shown. */
  fields: Readonly<Record<string, FieldSpec>>;
  /** The values the page was asked with: each field shows its own. */
  values: Readonly<Record<string, string>>;
}

/**
 * The form: each field named after its parameter and filled with the value asked for, so sending
 * it unchanged asks the same query (the page drops the fields left empty: `dropEmptyParameters`).
 */
export function FilterForm(props: FilterFormProps) {
  return (
    <form class="filters" method="get" action={props.action} aria-label="Filters">
      {Object.entries(props.fields).map(([name, spec]) => (
        <Field id={`${props.id}-${name}`} name={name} spec={spec} value={props.values[name] ?? ""} />
      ))}
      <div class="form-actions">
        <button type="submit">Apply</button> <a href={props.action}>Clear</a>
      </div>
    </form>
  );
}

function Field(props: { id: string; name: string; spec: FieldSpec; value: string }) {
  const { id, name, spec, value } = props;
  return (
    <label for={id}>
      {spec.label}
      <Input id={id} name={name} input={spec.input} value={value} />
    </label>
  );
}

function Input(props: { id: string; name: string; input: FieldInput; value: string }) {
  const { id, name, input, value } = props;
  if (input.kind === "select") {
    // A value the options lack (the page refused it with 400 before) cannot reach here; shown as given anyway.
    const options = input.options.some(([option]) => option === value)
      ? input.options
      : [...input.options, [value, value] as const];
    return (
      <select id={id} name={name}>
        {options.map(([option, label]) => (
          <option value={option} selected={option === value}>{label}</option>
        ))}
      </select>
    );
  }
  if (input.kind === "text") {
    return (
      <input
        type="text"
        id={id}
        name={name}
        value={value}
        placeholder={input.placeholder}
        maxlength={input.maxLength}
      />
    );
  }
  return (
    <input
      type="number"
      id={id}
      name={name}
      value={value}
      min={input.min}
      max={input.max}
      step={input.step}
      placeholder={input.placeholder}
    />
  );
}
