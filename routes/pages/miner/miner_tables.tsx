import type { MinerEventItem, MinerReport } from "../../../actors/scoring/mod.ts";
import { EmptyState, TableScroll } from "../kit/blocks.tsx";
import { count, fixed, shortKey, utc } from "../kit/format.ts";

/** The miner's newest scored events: its forecast and Brier beside the market's. */
export function ScoredEvents(props: { report: MinerReport }) {
  const { events, scoredEvents } = props.report;
  return (
    <TableScroll label="Scored events">
      <table>
        <caption>
          {events.length < scoredEvents
            ? `The newest ${count(events.length)} of ${count(scoredEvents)} scored events, newest first.`
            : `${count(scoredEvents)} scored events, newest first.`}
        </caption>
        <thead>
          <tr>
            <th scope="col" class="wrap">Event</th>
            <th scope="col">Resolved</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">Its forecast</th>
            <th scope="col" class="num">Market price at prediction</th>
            <th scope="col" class="num">Its Brier</th>
            <th scope="col" class="num">Market's Brier</th>
          </tr>
        </thead>
        <tbody>{events.map((item) => <EventRow item={item} />)}</tbody>
      </table>
    </TableScroll>
  );
}

function EventRow(props: { item: MinerEventItem }) {
  const { item } = props;
  return (
    <tr data-event={item.eventId}>
      <td class="wrap">
        <a href={`/events/${encodeURIComponent(item.eventId)}`}>{item.question}</a>
      </td>
      <td>{utc(item.resolvedAtMs)}</td>
      <td>{item.outcome.name}</td>
      <td class="num">{item.invalid ? <span class="tag">invalid</span> : fixed(item.pWin)}</td>
      <td class="num">{fixed(item.marketPWin)}</td>
      <td class="num">{item.invalid ? "—" : fixed(item.brier, 4)}</td>
      <td class="num">{item.invalid ? "—" : fixed(item.marketBrier, 4)}</td>
    </tr>
  );
}

/** The miner's agent versions: digest, size and upload time, never the code. */
export function AgentVersions(props: { report: MinerReport }) {
  const { versions, currentVersionId } = props.report.agents;
  if (versions.length === 0) {
    return (
      <EmptyState
        why="No agent version uploaded yet."
        next={
          <>
            A miner uploads its agent with <code>POST /v1/agents/submit-agent</code> (docs/agents.md).
          </>
        }
      />
    );
  }
  return (
    <TableScroll label="Agent versions">
      <table>
        <caption>Newest first. Validators run the current version.</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Name</th>
            <th scope="col">Uploaded</th>
            <th scope="col" class="num">Size</th>
            <th scope="col">SHA-256</th>
            <th scope="col">Current</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => (
            <tr data-version={version.versionId}>
              <td>
                <code>{version.versionId}</code>
              </td>
              <td>{version.name ?? "—"}</td>
              <td>{utc(version.createdAtMs)}</td>
              <td class="num">{count(version.sizeBytes)} B</td>
              <td>
                <code title={version.sha256}>{shortKey(version.sha256)}</code>
              </td>
              <td>{version.versionId === currentVersionId ? "current" : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
