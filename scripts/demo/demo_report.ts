/** What the demo prints once it is set up: what runs, what to open, and the customer's key. */
import type { DemoMiner } from "./demo_miners.ts";
import type { DemoMarket } from "./demo_resolver.ts";
import { CUSTOMER_SCOPES } from "./demo_accounts.ts";

/** The pages to open, with what each shows. */
const PAGES: readonly [string, string][] = [
  ["/", "the service: live figures and links"],
  ["/leaderboard", "the miners' scores"],
  ["/events", "the market catalog"],
  ["/scored", "resolved markets and the miners' forecasts"],
  ["/methodology", "how miners are scored and paid"],
  ["/docs", "the API reference"],
];

/** The JSON routes behind them. */
const JSON_ROUTES: readonly string[] = [
  "/v1/leaderboard",
  "/v1/events/scored",
  "/v1/events",
  "/openapi.json",
];

export interface SetUpReport {
  seed: number;
  /** The validator's `--concurrency`. */
  concurrency: number;
  folder: string;
  base: string;
  adminToken: string;
  apiKey: string;
  /** The customer organisation owner's single-use dashboard invitation. */
  ownerInvitation: string;
  miners: readonly DemoMiner[];
  /** The miner whose page is printed among the pages to open. */
  shownMiner: DemoMiner;
  schedule: readonly DemoMarket[];
}

/** The lines printed once the service runs and the accounts are made. */
export function setUpLines(report: SetUpReport): string[] {
  const { base, apiKey, shownMiner } = report;
  const width = Math.max(...PAGES.map(([path]) => (base + path).length));
  const minerPage = `${base}/miners/${shownMiner.signer.hotkey}`;
  return [
    `Service    ${base}  (Deno KV in ${report.folder}, removed on Ctrl-C)`,
    `Admin API  FGW_URL=${base} FGW_ADMIN_TOKEN=${report.adminToken} deno task admin help`,
    `Validator  uid 0, running: deno task validate --base ${base} --loop --concurrency ${report.concurrency}`,
    "",
    "Miners (each in its own organisation with 25 credits; agents uploaded signed by the miner):",
    ...report.miners.map((miner) =>
      `  uid ${String(miner.uid).padEnd(2)} ${miner.signer.hotkey}  ${miner.agent.padEnd(16)} ${miner.file}`
    ),
    "",
    "Open:",
    ...PAGES.map(([path, what]) => `  ${(base + path).padEnd(width)}  ${what}`),
    `  ${minerPage}  a miner's page (uid ${shownMiner.uid}, ${shownMiner.agent})`,
    `  JSON: ${JSON_ROUTES.map((path) => base + path).join("  ")}`,
    "",
    `Customer API key (organisation "Demo customer", 25 credits; ${CUSTOMER_SCOPES.join(", ")}):`,
    `  ${apiKey}`,
    `  curl -H "Authorization: Bearer ${apiKey}" ${base}/v1/predictions/<eventId>`,
    "",
    'Dashboard of "Demo customer": open this single-use link (24 h) in a browser to become its owner',
    "with a passkey, then make keys and read the usage:",
    `  ${report.ownerInvitation}`,
    "",
    `Seed ${report.seed}: resolving ${report.schedule.length} markets, each once all ${report.miners.length} ` +
    "miners have predicted it; winners drawn from 0.5 + 0.6 × (price − 0.5).",
  ];
}

/** Seconds since the process started, with one decimal. */
export function secondsSinceStart(): string {
  return (performance.now() / 1000).toFixed(1);
}
