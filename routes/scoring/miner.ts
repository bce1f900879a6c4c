import type { OpenAPIHono } from "@hono/zod-openapi";
import { isoAt, ServiceError } from "../../actors/kernel/mod.ts";
import { type MinerReport, type MinerView, SCORER_VERSION } from "../../actors/scoring/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { versionJson } from "../http/shared_schemas.ts";
import { minerHotkeyOf, minerRoute } from "./miner_api.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * `GET /v1/miners/{hotkey}`, mounted at `/v1/miners`, served from the instance's miner view: the
 * body of each report is rendered once (`openapiSelfParsed`: the handler validates the path).
 */
export function minerRoutes(view: MinerView): OpenAPIHono<AppEnv> {
  const bodies = new WeakMap<MinerReport, string>();
  const app = openApiApp<AppEnv>();
  openapiSelfParsed(app, minerRoute, async (c) => {
    const report = await knownMiner(view, minerHotkeyOf(c));
    let body = bodies.get(report);
    if (body === undefined) bodies.set(report, body = JSON.stringify(minerJson(report)));
    return c.body(body, 200, { "Content-Type": JSON_TYPE });
  });
  return app;
}

/** The report of `hotkey`, or 404 `not_found` for a miner the service does not know. */
export async function knownMiner(view: MinerView, hotkey: string): Promise<MinerReport> {
  const report = await view.report(hotkey);
  if (report === null) throw new ServiceError("not_found", `No such miner: ${hotkey}`);
  return report;
}

/** The report as `GET /v1/miners/{hotkey}` shows it (docs/scoring.md). */
export function minerJson(report: MinerReport) {
  const { window, intervals, agents } = report;
  return {
    hotkey: report.hotkey,
    updatedAt: isoAt(report.builtAtMs),
    scorerVersion: SCORER_VERSION,
    window: {
      computedAt: isoAt(window.computedAtMs),
      windowDays: window.windowDays,
      resolvedAfter: isoAt(window.resolvedAfterMs),
      resolvedUntil: isoAt(window.resolvedUntilMs),
    },
    standing: report.standing,
    intervals: {
      validEvents: intervals.validRows,
      meanBrier: intervals.meanBrier,
      meanEdge: intervals.meanEdge,
    },
    reliability: report.reliability,
    brierOverTime: report.brierOverTime.map(({ weekStartMs, count, meanBrier, marketMeanBrier }) => ({
      weekStart: isoAt(weekStartMs),
      count,
      meanBrier,
      marketMeanBrier,
    })),
    scoredEvents: {
      total: report.scoredEvents,
      items: report.events.map(({ resolvedAtMs, predictedAtMs, ...item }) => ({
        eventId: item.eventId,
        question: item.question,
        resolvedAt: isoAt(resolvedAtMs),
        uid: item.uid,
        predictedAt: isoAt(predictedAtMs),
        outcome: item.outcome,
        invalid: item.invalid,
        pWin: item.pWin,
        pPredicted: item.pPredicted,
        called: item.called,
        brier: item.brier,
        marketPWin: item.marketPWin,
        marketBrier: item.marketBrier,
      })),
    },
    agents: {
      currentVersionId: agents.currentVersionId,
      versions: agents.versions.map((version) =>
        versionJson(version, version.versionId === agents.currentVersionId)
      ),
    },
  };
}
