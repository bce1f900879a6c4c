import assert from "node:assert/strict";
import { parseScorerInput, scoreV1, WORKED_EXAMPLE_INPUT } from "../../actors/scoring/mod.ts";
import { openTestService } from "../support/test_service.ts";

const HTML = { accept: "text/html" };
const SCORING_DIR = new URL("../../actors/scoring/", import.meta.url);

/** Constants of the scoring area that are the service's plumbing, not the scorer's (and why). */
const NOT_THE_SCORER: Record<string, string> = {
  SCORING_JOB: "the periodic job's name",
  LEADERBOARD_CACHE_MS: "how long an instance serves one built board",
  MAX_TOOL_NAMES: "the size of a trace summary on the scored-predictions feed",
  DEFAULT_SORT: "the leaderboard's default column",
  SORT_NAMES: "the leaderboard's sortable columns",
  MINER_CACHE_MS: "how long an instance serves one miner report",
  MINER_EVENTS_LISTED: "how many scored events a miner report lists",
};

/** The files of the figures the pages add (not part of scorer v1). */
const PAGE_FIGURE_FILES = new Set(["page_interval.ts"]);

type ConstantValue = number | string | readonly string[];
interface Exported {
  name: string;
  value: ConstantValue;
  file: string;
}

function isConstant(name: string, value: unknown): value is ConstantValue {
  return /^[A-Z][A-Z0-9_]*$/.test(name) &&
    (typeof value === "number" || typeof value === "string" ||
      (Array.isArray(value) && value.every((item) => typeof item === "string")));
}

/**
 * Every constant (an UPPER_CASE name holding a number, a string or a list of strings) exported by
 * a file of actors/scoring/ (but its private `_` files), split into scorer v1's and the pages' own.
 */
async function exportedConstants(): Promise<{ scorer: Exported[]; page: Exported[] }> {
  const found: Exported[] = [];
  for await (const entry of Deno.readDir(SCORING_DIR)) {
    if (
      !entry.isFile || !entry.name.endsWith(".ts") || entry.name.startsWith("_") || entry.name === "mod.ts"
    ) continue;
    const module: Record<string, unknown> = await import(new URL(entry.name, SCORING_DIR).href);
    for (const [name, value] of Object.entries(module)) {
      if (isConstant(name, value) && !(name in NOT_THE_SCORER)) {
        found.push({ name, value, file: `actors/scoring/${entry.name}` });
      }
    }
  }
  const byName = (a: Exported, b: Exported) => a.name.localeCompare(b.name);
  const isPage = (c: Exported) => PAGE_FIGURE_FILES.has(c.file.slice("actors/scoring/".length));
  return { scorer: found.filter((c) => !isPage(c)).sort(byName), page: found.filter(isPage).sort(byName) };
}

function textOf(value: ConstantValue): string {
  return typeof value === "object" ? value.join(", ") : String(value);
}

/** The inner text of the element with `attribute` (e.g. `data-constant="RHO_PRIOR"`), tags removed. */
function elementText(html: string, attribute: string): string {
  const start = html.indexOf(attribute);
  assert.ok(start >= 0, `the page has no ${attribute}`);
  const tag = html.lastIndexOf("<", start);
  const name = /^<(\w+)/.exec(html.slice(tag))![1]!;
  const end = html.indexOf(`</${name}>`, start);
  return html.slice(html.indexOf(">", start) + 1, end);
}

/** The text of the cell `data-figure="<figure>"` inside the element with `attribute`. */
function figureIn(html: string, attribute: string, figure: string): string {
  const row = elementText(html, attribute);
  const match = new RegExp(`data-figure="${figure}"[^>]*>([^<]*)<`).exec(row);
  assert.ok(match, `${attribute} has no ${figure}`);
  return match[1]!;
}

/** A figure as the page writes it: the scorer's number as is, null as an em dash, booleans as yes/no. */
function written(value: number | boolean | null): string {
  return value === null ? "—" : typeof value === "boolean" ? (value ? "yes" : "no") : String(value);
}

async function methodologyHtml(env: Record<string, string> = {}): Promise<{ html: string; json: unknown }> {
  await using service = await openTestService({ env });
  const page = await service.request("/methodology", { headers: HTML });
  assert.equal(page.status, 200);
  const html = await page.text();
  const json = await (await service.request("/v1/scoring/methodology")).json();
  return { html, json };
}

Deno.test("the methodology page shows every exported constant of scorer v1 with its value, as its JSON route does", async () => {
  const { html, json } = await methodologyHtml();
  const { scorer, page } = await exportedConstants();
  assert.ok(scorer.length >= 11, `found ${scorer.length} constants`);
  for (const { name, value } of [...scorer, ...page]) {
    const row = elementText(html, `data-constant="${name}"`);
    assert.match(row, new RegExp(`<code>${name}</code>`), name);
    assert.equal(/data-value="">([^<]*)</.exec(row)?.[1], textOf(value), name);
  }
  const body = json as Record<
    "constants" | "pageFigureConstants",
    { name: string; value: unknown; file: string }[]
  >;
  const listed = (list: { name: string; value: unknown; file: string }[]) =>
    list.map(({ name, value, file }) => ({ name, value, file })).toSorted((a, b) =>
      a.name.localeCompare(b.name)
    );
  assert.deepEqual(
    listed(body.constants),
    listed(scorer.map((c) => ({ ...c, value: structuredClone(c.value) }))),
  );
  assert.deepEqual(listed(body.pageFigureConstants), listed(page));
});

Deno.test("the worked example's figures on the page are scorer v1's output for the example's input", async () => {
  const { html, json } = await methodologyHtml();
  const input = parseScorerInput(JSON.parse(JSON.stringify(WORKED_EXAMPLE_INPUT)));
  const output = scoreV1(input);
  for (const [id, result] of Object.entries(output.predictions)) {
    const at = `data-prediction="${id}"`;
    for (const figure of ["pWin", "brier", "marketBrier", "called", "isValid"] as const) {
      assert.equal(figureIn(html, at, figure), written(result[figure]), `${id} ${figure}`);
    }
    assert.equal(figureIn(html, at, "reasons"), result.reasons.join(", ") || "—", `${id} reasons`);
  }
  for (const [id, result] of Object.entries(output.events)) {
    for (const [figure, value] of Object.entries(result.stats)) {
      assert.equal(figureIn(html, `data-event-stats="${id}"`, figure), written(value), `${id} ${figure}`);
    }
    assert.equal(
      figureIn(html, `data-event-stats="${id}"`, "marketPWinAtAdmission"),
      written(result.marketPWinAtAdmission),
    );
  }
  const cells = [...html.matchAll(/data-miner="([^"]+)" data-figure="([^"]+)">([^<]*)</g)];
  for (const [hotkey, miner] of Object.entries(output.miners)) {
    const shown = new Map(cells.filter((c) => c[1] === hotkey).map((c) => [c[2], c[3]]));
    for (const [figure, value] of Object.entries(miner.scoring)) {
      assert.equal(
        shown.get(figure),
        typeof value === "string" ? value : written(value),
        `${hotkey} ${figure}`,
      );
    }
    for (
      const figure of ["forecastingIncentive", "forecastingAlphaPerDay", "forecastingUsdPerDay"] as const
    ) {
      assert.equal(shown.get(figure), written(miner[figure]), `${hotkey} ${figure}`);
    }
  }
  assert.match(
    html,
    new RegExp(`data-figure="forecastingBudgetAlphaPerDay">${output.forecastingBudgetAlphaPerDay}<`),
  );
  assert.deepEqual(
    (json as { example: { output: unknown } }).example.output,
    JSON.parse(JSON.stringify(output)),
  );
});

Deno.test("the example's row weights halve every seven days, and an event resolved before the window has none", async () => {
  const { html } = await methodologyHtml();
  const computedAtMs = Date.parse(WORKED_EXAMPLE_INPUT.computedAt);
  for (const event of WORKED_EXAMPLE_INPUT.events) {
    const days = (computedAtMs - Date.parse(event.resolution.resolvedAt!)) / 86_400_000;
    const expected = days < 30 ? String(Math.round(0.5 ** (days / 7) * 1e6) / 1e6) : "—";
    assert.equal(figureIn(html, `data-event="${event.id}"`, "weight"), expected, event.id);
  }
});

Deno.test("the methodology page shows this deployment's scoring settings from its configuration", async () => {
  const { html, json } = await methodologyHtml({
    FGW_SCORING_WINDOW_DAYS: "14",
    FGW_SCORING_INTERVAL_MS: "60000",
    FGW_FORECASTING_WEIGHT_SHARE: "0.4",
  });
  assert.match(elementText(html, `data-setting="windowDays"`), /<dd>14 days<\/dd>/);
  assert.match(elementText(html, `data-setting="scoringIntervalMs"`), /<dd>60000 ms \(1 minute\)<\/dd>/);
  assert.match(elementText(html, `data-setting="forecastingWeightShare"`), /<dd>0.4<\/dd>/);
  assert.deepEqual((json as { settings: unknown }).settings, {
    windowDays: 14,
    scoringIntervalMs: 60_000,
    forecastingWeightShare: 0.4,
  });
});

Deno.test("the methodology page has no inline style or script, unique ids and headings in order", async () => {
  const { html } = await methodologyHtml();
  assert.doesNotMatch(html, /style=|<script/);
  const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(new Set(ids).size, ids.length);
  const levels = [...html.matchAll(/<h([1-6])[ >]/g)].map((m) => Number(m[1]));
  assert.equal(levels[0], 1);
  for (let i = 1; i < levels.length; i++) {
    assert.ok(levels[i]! <= levels[i - 1]! + 1, `h${levels[i]} after h${levels[i - 1]}`);
  }
});
