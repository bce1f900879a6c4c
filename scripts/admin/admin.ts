import { parseArgs } from "node:util";
import { type AdminCall, type AdminOptions, findCommand, helpText } from "./admin_commands.ts";
import { formatError, formatRecord } from "./admin_format.ts";
import { type AdminAnswer, adminOffText, isUnknownRoute } from "./admin_off.ts";
import { isHeaderValue, NOT_A_HEADER_VALUE } from "../../actors/kernel/mod.ts";

/** Where the CLI reads its settings and writes its output (tests pass their own). */
export interface AdminIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  fetch?: typeof fetch;
}

const STRING_OPTIONS = ["name", "scopes", "rpm", "pin", "expires", "cursor", "limit", "role"] as const;
const BOOLEAN_OPTIONS = ["json", "help", "default"] as const;

function parse(argv: string[]): { positionals: string[]; options: AdminOptions } {
  const options = Object.fromEntries([
    ...STRING_OPTIONS.map((name) => [name, { type: "string" as const }]),
    ...BOOLEAN_OPTIONS.map((name) => [name, { type: "boolean" as const }]),
  ]);
  const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  return { positionals: parsed.positionals, options: parsed.values as AdminOptions };
}

/** The service's base URL (`FGW_URL`), without a trailing slash. */
function baseUrl(io: AdminIo): string {
  return (io.env.FGW_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
}

/** Sends `call` with the admin token (or, `anonymous`, without any) and reads the answer. */
async function send(call: AdminCall, io: AdminIo, anonymous = false): Promise<AdminAnswer> {
  const headers: Record<string, string> = anonymous ? {} : { authorization: `Bearer ${adminToken(io)}` };
  if (call.body !== undefined) headers["content-type"] = "application/json";
  const response = await (io.fetch ?? fetch)(`${baseUrl(io)}${call.path}`, {
    method: call.method,
    headers,
    ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
  });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body };
}

/** The token of FGW_ADMIN_TOKEN, without the whitespace around it (a header's value has none). */
function adminToken(io: AdminIo): string {
  return (io.env.FGW_ADMIN_TOKEN ?? "").trim();
}

/**
 * True when the service's admin API is off: `answer` is the 404 of an unknown route, and so is the
 * answer to the same path without a token (with the admin API on, that one is 401). See admin_off.ts.
 */
async function adminApiOff(call: AdminCall, answer: AdminAnswer, io: AdminIo): Promise<boolean> {
  if (!isUnknownRoute(answer)) return false;
  const probe = await send({ method: "GET", path: call.path }, io, true).catch(() => null);
  return probe !== null && isUnknownRoute(probe);
}

/** Prints an API error (the raw body with `--json`); exit status 1. */
async function reportFailure(
  call: AdminCall,
  answer: AdminAnswer,
  io: AdminIo,
  json: boolean,
): Promise<number> {
  if (json) io.err(JSON.stringify(answer.body, null, 2));
  else if (await adminApiOff(call, answer, io)) io.err(adminOffText(baseUrl(io)));
  else io.err(formatError(answer.status, answer.body));
  return 1;
}

function usageError(io: AdminIo, message: string): number {
  io.err(`error: ${message}\n\n${helpText()}`);
  return 2;
}

/**
 * Runs one CLI invocation (`deno task admin …`) against the admin API at FGW_URL with
 * FGW_ADMIN_TOKEN; returns the exit status (0 ok, 1 API or network error, 2 usage error).
 * The token is sent, never printed.
 */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    return usageError(io, error instanceof Error ? error.message : String(error));
  }
  const { positionals, options } = parsed;
  if (options.help === true || positionals.length === 0 || positionals[0] === "help") {
    io.out(helpText());
    return 0;
  }
  const found = findCommand(positionals);
  if (!found) return usageError(io, `unknown command: ${positionals.join(" ")}`);
  const { command, args } = found;
  if (args.length !== command.args.length) {
    return usageError(io, `${command.words.join(" ")} takes ${command.args.map((a) => `<${a}>`).join(" ")}`);
  }
  const allowed = new Set(["json", ...(command.options ?? [])]);
  const stray = Object.keys(options).find((name) => options[name] !== undefined && !allowed.has(name));
  if (stray) return usageError(io, `${command.words.join(" ")} does not take --${stray}`);
  const missing = (command.required ?? []).filter((name) => typeof options[name] !== "string");
  if (missing.length > 0) {
    return usageError(
      io,
      `${command.words.join(" ")} needs ${missing.map((name) => `--${name}`).join(", ")}`,
    );
  }
  const token = adminToken(io);
  if (!token) return usageError(io, "FGW_ADMIN_TOKEN is not set");
  if (!isHeaderValue(token)) return usageError(io, `FGW_ADMIN_TOKEN ${NOT_A_HEADER_VALUE}`);
  const call = command.call(args, options);
  let answer;
  try {
    answer = await send(call, io);
  } catch (error) {
    const url = io.env.FGW_URL ?? "http://127.0.0.1:8080";
    io.err(`error: cannot reach ${url} (is the service running there? FGW_URL names it): ${String(error)}`);
    return 1;
  }
  if (answer.status >= 400) return await reportFailure(call, answer, io, options.json === true);
  if (options.json === true) io.out(JSON.stringify(answer.body ?? null, null, 2));
  else io.out(command.render ? command.render(answer.body, args) : formatRecord(answer.body));
  return 0;
}

if (import.meta.main) {
  const io: AdminIo = {
    env: Deno.env.toObject(),
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  };
  Deno.exit(await runAdmin(Deno.args, io));
}
