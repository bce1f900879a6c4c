import type { NamedConstant } from "../../../actors/scoring/mod.ts";
import { TableScroll } from "../kit/blocks.tsx";

/** A constant's value as the page writes it: a list joined by commas, anything else as is. */
export function constantText(value: NamedConstant["value"]): string {
  return typeof value === "object" ? value.join(", ") : String(value);
}

/** A table of named constants: name, value, meaning and the file that exports it. */
export function ConstantsTable(props: { caption: string; constants: readonly NamedConstant[] }) {
  return (
    <TableScroll label={props.caption}>
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Constant</th>
            <th scope="col">Value</th>
            <th scope="col" class="wrap">Meaning</th>
            <th scope="col">Exported by</th>
          </tr>
        </thead>
        <tbody>
          {props.constants.map((constant) => (
            <tr data-constant={constant.name}>
              <th scope="row">
                <code>{constant.name}</code>
              </th>
              <td class="wrap" data-value="">{constantText(constant.value)}</td>
              <td class="wrap">{constant.meaning}</td>
              <td>
                <code>{constant.file}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
