import { formatIssuedKey, formatPage, formatRecord, formatTable, formatUsage } from "./admin_format.ts";
import { MEMBER_COMMANDS } from "./admin_member_commands.ts";

import type { AdminCall, AdminCommand, AdminOptions } from "./admin_command.ts";

export type { AdminCall, AdminCommand, AdminOptions };

const seg = encodeURIComponent;

/** Requests per minute of a key issued without `--rpm` (docs/api_keys.md, "Issuing keys with the CLI"). */
export const DEFAULT_KEY_RPM = 60;

/** Numbers stay numbers; anything else is sent as typed so the server names the bad field. */
function numberOrRaw(value: string | boolean | undefined): number | string | undefined {
  if (typeof value !== "string") return undefined;
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

function pageQuery(options: AdminOptions): string {
  const query = new URLSearchParams();
  if (typeof options.cursor === "string") query.set("cursor", options.cursor);
  if (typeof options.limit === "string") query.set("limit", options.limit);
  const text = query.toString();
  return text ? `?${text}` : "";
}

function keyTerms(options: AdminOptions): Record<string, unknown> {
  const scopes = typeof options.scopes === "string"
    ? options.scopes.split(",").map((s) => s.trim())
    : undefined;
  return {
    name: options.name,
    scopes,
    rateLimitRpm: typeof options.rpm === "string" ? numberOrRaw(options.rpm) : DEFAULT_KEY_RPM,
    ...(typeof options.pin === "string" ? { pinnedMinerHotkey: options.pin } : {}),
    ...(typeof options.expires === "string" ? { expiresAt: options.expires } : {}),
  };
}

function keyAction(action: "rotate" | "revoke"): AdminCommand {
  return {
    words: ["key", action],
    args: ["keyId"],
    summary: action === "rotate"
      ? "new secret; the old key fails at once"
      : "the key fails at once; stays listed",
    call: ([keyId]) => ({ method: "POST", path: `/admin/v1/keys/${seg(keyId!)}/${action}` }),
    render: action === "rotate"
      ? formatIssuedKey
      : (body) => formatRecord((body as { key?: unknown }).key ?? body),
  };
}

/**
 * Every command of `deno task admin`, in help order: the whole admin API (docs/billing.md, docs/api_keys.md,
 * docs/dashboard.md).
 */
export const ADMIN_COMMANDS: AdminCommand[] = [
  {
    words: ["org", "create"],
    args: ["name"],
    summary: "create an organisation",
    call: ([name]) => ({ method: "POST", path: "/admin/v1/orgs", body: { name } }),
  },
  {
    words: ["org", "show"],
    args: ["orgId"],
    summary: "balance, miners and keys (without secrets)",
    call: ([orgId]) => ({ method: "GET", path: `/admin/v1/orgs/${seg(orgId!)}` }),
  },
  {
    words: ["credits", "add"],
    args: ["orgId", "amountMicro", "reference"],
    summary: "top up (idempotent per reference)",
    call: ([orgId, amountMicro, reference]) => ({
      method: "POST",
      path: `/admin/v1/orgs/${seg(orgId!)}/credits`,
      body: { amountMicro, reference },
    }),
  },
  {
    words: ["miner", "add"],
    args: ["orgId", "hotkey"],
    options: ["default"],
    summary: "register a miner hotkey (--default: attribute calls to it)",
    call: ([orgId, hotkey], options) => ({
      method: "POST",
      path: `/admin/v1/orgs/${seg(orgId!)}/miners`,
      body: { hotkey, ...(options.default === true ? { default: true } : {}) },
    }),
  },
  {
    words: ["miner", "remove"],
    args: ["orgId", "hotkey"],
    summary: "unregister a miner hotkey",
    call: ([orgId, hotkey]) => ({
      method: "DELETE",
      path: `/admin/v1/orgs/${seg(orgId!)}/miners/${seg(hotkey!)}`,
    }),
  },
  {
    words: ["key", "issue"],
    args: ["orgId"],
    options: ["name", "scopes", "rpm", "pin", "expires"],
    required: ["name", "scopes"],
    summary: `--name N --scopes a,b [--rpm N (default ${DEFAULT_KEY_RPM})] [--pin HOTKEY] [--expires ISO]; ` +
      "prints the key once",
    call: ([orgId], options) => ({
      method: "POST",
      path: `/admin/v1/orgs/${seg(orgId!)}/keys`,
      body: keyTerms(options),
    }),
    render: formatIssuedKey,
  },
  {
    words: ["key", "list"],
    args: ["orgId"],
    summary: "an organisation's keys (without secrets)",
    call: ([orgId]) => ({ method: "GET", path: `/admin/v1/orgs/${seg(orgId!)}/keys` }),
    render: (body) => formatTable((body as { items?: unknown[] }).items ?? []),
  },
  {
    words: ["key", "show"],
    args: ["keyId"],
    summary: "one key (without its secret)",
    call: ([keyId]) => ({ method: "GET", path: `/admin/v1/keys/${seg(keyId!)}` }),
    render: (body) => formatRecord((body as { key?: unknown }).key ?? body),
  },
  keyAction("rotate"),
  keyAction("revoke"),
  {
    words: ["key", "delete"],
    args: ["keyId"],
    summary: "delete the key; it fails at once",
    call: ([keyId]) => ({ method: "DELETE", path: `/admin/v1/keys/${seg(keyId!)}` }),
    render: (_body, [keyId]) => `deleted ${keyId}`,
  },
  {
    words: ["ledger"],
    args: ["orgId"],
    options: ["cursor", "limit"],
    summary: "balance movements, newest first [--cursor C] [--limit N]",
    call: ([orgId], options) => ({
      method: "GET",
      path: `/admin/v1/orgs/${seg(orgId!)}/ledger${pageQuery(options)}`,
    }),
    render: (body, [orgId]) => formatPage(body, (cursor) => `admin ledger ${orgId} --cursor ${cursor}`),
  },
  {
    words: ["usage"],
    args: ["orgId"],
    options: ["cursor", "limit"],
    summary: "settled gateway calls, newest first [--cursor C] [--limit N]",
    call: ([orgId], options) => ({
      method: "GET",
      path: `/admin/v1/orgs/${seg(orgId!)}/usage${pageQuery(options)}`,
    }),
    render: (body, [orgId]) => formatUsage(body, (cursor) => `admin usage ${orgId} --cursor ${cursor}`),
  },
  ...MEMBER_COMMANDS,
];

/** The command named by the leading words of `positionals`, and its positional arguments. */
export function findCommand(positionals: string[]): { command: AdminCommand; args: string[] } | null {
  for (const command of ADMIN_COMMANDS) {
    if (command.words.every((word, i) => positionals[i] === word)) {
      return { command, args: positionals.slice(command.words.length) };
    }
  }
  return null;
}

/** The `help` text. */
export function helpText(): string {
  const lines = ADMIN_COMMANDS.map((command) => {
    const usage = [...command.words, ...command.args.map((arg) => `<${arg}>`)].join(" ");
    return `  ${usage.padEnd(52)} ${command.summary}`;
  });
  return [
    "Usage: deno task admin <command> [--json]",
    "",
    "Environment: FGW_URL (default http://127.0.0.1:8080), FGW_ADMIN_TOKEN (required).",
    "--json prints the raw JSON answer. Exit status: 0 ok, 1 API or network error, 2 usage error.",
    "",
    "Commands:",
    ...lines,
    "  help",
  ].join("\n");
}
