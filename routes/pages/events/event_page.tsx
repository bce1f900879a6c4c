import type { Context } from "hono";
import type { EventDetail, EventDetails } from "../../catalog/event_detail.ts";
import { refuseQueryParameters } from "../../http/validation.ts";
import { Provenance } from "../kit/blocks.tsx";
import { usd, utc } from "../kit/format.ts";
import { Layout } from "../kit/layout.tsx";
import { sendPage } from "../kit/page_answer.ts";
import { htmlOf } from "../kit/render.ts";
import { eventPath, statusText } from "./event_cells.tsx";
import { MinersForecasts, OutcomesTable, PaidWhileOpen, PriceChart, Resolution } from "./event_sections.tsx";
import { sourceLink } from "./source_link.ts";

/**
 * `GET /events/{id}`: the event as `GET /v1/events/{eventId}` shows it, read through the same
 * cache: the market, its price history, and once settled the consensus and the miners' forecasts.
 */
export function eventPage(details: EventDetails) {
  return async (c: Context): Promise<Response> => {
    refuseQueryParameters(c.req.url);
    const entry = await details.read(c.req.param("id") ?? "");
    const html = entry.body("html") ?? entry.keep("html", await htmlOf(<EventPage detail={entry.value} />));
    return sendPage(c, html);
  };
}

function EventPage(props: { detail: EventDetail }) {
  const { detail } = props;
  const { event } = detail.event;
  const window = `the 7 days ${utc(detail.history.from)} – ${utc(detail.history.to)} (hourly prices)`;
  return (
    <Layout title={event.question} path={eventPath(event.id)}>
      <h1>{event.question}</h1>
      <Provenance
        computedAt={detail.computedAtMs}
        window={window}
        note={
          <>
            The same figures as JSON: <a href={`/v1/events/${encodeURIComponent(event.id)}`}>this event</a>.
          </>
        }
      />
      <p class="description">{event.description}</p>
      <Facts detail={detail} />
      <h2>Outcomes</h2>
      <OutcomesTable event={event} />
      <h2>Price history</h2>
      <PriceChart detail={detail} />
      {detail.open ? <PaidWhileOpen eventId={event.id} /> : (
        <>
          <h2>Resolution</h2>
          <Resolution event={event} />
          <h2>Miners' forecasts</h2>
          <MinersForecasts scored={detail.scored} />
        </>
      )}
    </Layout>
  );
}

function Facts(props: { detail: EventDetail }) {
  const { event } = props.detail.event;
  const link = sourceLink(event);
  return (
    <dl class="defs">
      <dt>Status</dt>
      <dd>{statusText(event)}</dd>
      <dt>Ends</dt>
      <dd>
        <time datetime={event.endDate}>{utc(event.endDate)}</time>
      </dd>
      <dt>Liquidity and volume now</dt>
      <dd>
        {usd(event.currentLiquidityUsd)} liquidity, {usd(event.currentVolumeUsd)}{" "}
        volume ({usd(event.volumeRecentUsd)} in 24 hours)
      </dd>
      <dt>At admission</dt>
      <dd>
        <time datetime={event.admittedAt}>{utc(event.admittedAt)}</time>: {usd(event.liquidityUsd)} liquidity,
        {" "}
        {usd(event.volumeUsd)} volume
      </dd>
      <dt>Source</dt>
      <dd>
        {link ? <a href={link.href} rel="external noopener noreferrer">{link.label}</a> : (
          <>
            {event.source} market <code>{event.sourceMarketId}</code>
          </>
        )}
      </dd>
    </dl>
  );
}
