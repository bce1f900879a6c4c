import type { IndexedEvent } from "../../../actors/catalog/mod.ts";
import { TableScroll } from "../kit/blocks.tsx";
import { usd, utc } from "../kit/format.ts";
import { eventPath, OutcomePrices, statusText } from "./event_cells.tsx";

/** A page of the catalog as a table: one row per event, in the order the query listed them. */
export function EventsTable(props: { items: readonly IndexedEvent[] }) {
  return (
    <TableScroll label="Events">
      <table>
        <caption>
          In the order asked for; liquidity and volume as at admission (what the filters and sorts use)
        </caption>
        <thead>
          <tr>
            <th scope="col" class="wrap">Question</th>
            <th scope="col">Current prices</th>
            <th scope="col">Ends</th>
            <th scope="col" class="num">Liquidity</th>
            <th scope="col" class="num">Volume</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map(({ event }) => (
            <tr data-event-id={event.id}>
              <td class="wrap">
                <a href={eventPath(event.id)}>{event.question}</a>
              </td>
              <td>
                <OutcomePrices event={event} />
              </td>
              <td>
                <time datetime={event.endDate}>{utc(event.endDate)}</time>
              </td>
              <td class="num">{usd(event.liquidityUsd)}</td>
              <td class="num">{usd(event.volumeUsd)}</td>
              <td>{statusText(event)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
