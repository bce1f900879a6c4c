/** A table's head: a row of column headers, one a name (a `false` name, a column not shown, is left out). */
export function ColumnHeads(props: { names: readonly (string | false)[] }) {
  return (
    <thead>
      <tr>
        {props.names.map((name) => name === false ? "" : <th scope="col">{name}</th>)}
      </tr>
    </thead>
  );
}
