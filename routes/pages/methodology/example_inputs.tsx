import type { WorkedExample } from "../../../actors/scoring/mod.ts";
import { TableScroll } from "../kit/blocks.tsx";
import { utc } from "../kit/format.ts";

const DAY_MS = 86_400_000;

/** A figure as the example writes it: numbers as the scorer gives them, null as an em dash. */
export function figure(value: number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

const HOUR_MS = 3_600_000;

/** `2 d before` / `3 h after`: how long `at` is before (or after) `reference`. */
function relative(at: string, reference: string, unitMs: number, unit: string): string {
  const amount = (Date.parse(reference) - Date.parse(at)) / unitMs;
  return `${Math.abs(amount)} ${unit} ${amount >= 0 ? "before" : "after"}`;
}

/** The example's events: question, resolution, admission price, window and row weight. */
export function ExampleEvents(props: { example: WorkedExample }) {
  const { input, questions, events } = props.example;
  return (
    <TableScroll label="Example events">
      <table>
        <caption>Events (binary: Yes or No), resolved before computedAt = {utc(input.computedAt)}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col" class="wrap">Question</th>
            <th scope="col">Resolved</th>
            <th scope="col">Winner</th>
            <th scope="col" class="num">Admission p(Yes)</th>
            <th scope="col">In the window</th>
            <th scope="col" class="num">Row weight w</th>
          </tr>
        </thead>
        <tbody>
          {input.events.map((event) => (
            <tr data-event={event.id}>
              <th scope="row">
                <code>{event.id}</code>
              </th>
              <td class="wrap">{questions[event.id]}</td>
              <td>{relative(event.resolution.resolvedAt!, input.computedAt, DAY_MS, "d")} computedAt</td>
              <td>{event.resolution.winningOutcomeId}</td>
              <td class="num">{figure(event.outcomePricesAtAdmission["yes"])}</td>
              <td>{figure(events[event.id]!.inWindow)}</td>
              <td class="num" data-figure="weight">{figure(events[event.id]!.weight)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** The example's predictions as the scorer reads them. */
export function ExamplePredictions(props: { example: WorkedExample }) {
  const { input } = props.example;
  const resolvedAt = new Map(input.events.map((e) => [e.id, e.resolution.resolvedAt!]));
  return (
    <TableScroll label="Example predictions">
      <table>
        <caption>
          Predictions: the miners' forecasts and the market's price handed out with each lease
        </caption>
        <thead>
          <tr>
            <th scope="col">Prediction</th>
            <th scope="col" class="num">Miner uid</th>
            <th scope="col">Event</th>
            <th scope="col">Received</th>
            <th scope="col" class="num">p(Yes)</th>
            <th scope="col" class="num">p(No)</th>
            <th scope="col">Predicted</th>
            <th scope="col" class="num">Market p(Yes)</th>
            <th scope="col">Agent flagged invalid</th>
          </tr>
        </thead>
        <tbody>
          {input.predictions.map((p) => (
            <tr data-input={p.agentPredictionId}>
              <th scope="row">
                <code>{p.agentPredictionId}</code>
              </th>
              <td class="num">{figure(p.minerUid)}</td>
              <td>
                <code>{p.eventId}</code>
              </td>
              <td>{relative(p.predictedAt, resolvedAt.get(p.eventId)!, HOUR_MS, "h")} resolution</td>
              <td class="num">{figure(p.outcomeProbabilities["yes"])}</td>
              <td class="num">{figure(p.outcomeProbabilities["no"])}</td>
              <td>{p.predictedOutcomeId}</td>
              <td class="num">{figure(p.outcomePricesAtPrediction?.["yes"])}</td>
              <td>{figure(p.predictionIsInvalid)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
