import type { EventRecord } from "../../../storage/event_record.ts";
import { fixed } from "../kit/format.ts";

/** Where an event's page is. */
export function eventPath(eventId: string): string {
  return `/events/${encodeURIComponent(eventId)}`;
}

/** An event's status in words: unresolved, the winner once resolved, or voided. */
export function statusText(event: EventRecord): string {
  const { resolution } = event;
  if (resolution.resolutionStatus === "resolved") return `Resolved: ${resolution.winningOutcomeName ?? "?"}`;
  if (resolution.resolutionStatus === "voided") return "Voided";
  return "Unresolved";
}

/** Each outcome with its current price, in the event's outcome order. */
export function OutcomePrices(props: { event: EventRecord }) {
  const { outcomes, currentOutcomePrices } = props.event;
  return (
    <ul class="outcomes">
      {outcomes.map((outcome) => (
        <li>
          {outcome.name} <span class="num">{fixed(currentOutcomePrices[outcome.outcomeId])}</span>
        </li>
      ))}
    </ul>
  );
}
