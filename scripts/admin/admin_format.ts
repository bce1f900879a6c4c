/** Readable rendering of admin API answers for the CLI (`--json` prints them raw instead). */

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function scalar(value: Json): string {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) return value.map(scalar).join(",") || "-";
  if (isRecord(value)) return JSON.stringify(value);
  return String(value);
}

/** `key: value` lines, nested objects indented; arrays of objects as tables. */
export function formatRecord(value: Json, indent = ""): string {
  if (!isRecord(value)) return `${indent}${scalar(value)}`;
  const width = Math.max(0, ...Object.keys(value).map((key) => key.length));
  const lines: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (Array.isArray(item) && item.some(isRecord)) {
      lines.push(`${indent}${key}:`, formatTable(item, `${indent}  `));
    } else if (isRecord(item)) {
      lines.push(`${indent}${key}:`, formatRecord(item, `${indent}  `));
    } else {
      lines.push(`${indent}${key.padEnd(width)}  ${scalar(item)}`);
    }
  }
  return lines.join("\n");
}

/** A plain-text table of `rows` (columns: the union of their keys, in first-seen order). */
export function formatTable(rows: Json[], indent = ""): string {
  if (rows.length === 0) return `${indent}(none)`;
  const records = rows.map((row) => isRecord(row) ? row : { value: row });
  const columns = [...new Set(records.flatMap((row) => Object.keys(row)))];
  const cells = records.map((row) => columns.map((column) => scalar(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => indent + values.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(columns), ...cells.map(line)].join("\n");
}

/** The error body (docs/conventions.md, "Errors") as one or more readable lines. */
export function formatError(status: number, body: Json): string {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (!error) return `error: HTTP ${status}${body === undefined ? "" : `: ${scalar(body)}`}`;
  const lines = [`error: ${scalar(error.code)} (HTTP ${status}): ${scalar(error.message)}`];
  const details = isRecord(error.details) ? error.details : undefined;
  const fields = Array.isArray(details?.fields) ? details.fields : [];
  for (const field of fields) {
    if (isRecord(field)) lines.push(`  ${scalar(field.field)}: ${scalar(field.problem)}`);
  }
  if (details && fields.length === 0) lines.push(formatRecord(details, "  "));
  if (isRecord(body) && typeof body.requestId === "string") lines.push(`  requestId: ${body.requestId}`);
  return lines.join("\n");
}

/** A page (`items` + `nextCursor`) as a table and the command that fetches the next one. */
export function formatPage(body: Json, nextCommand: (cursor: string) => string): string {
  if (!isRecord(body) || !Array.isArray(body.items)) return formatRecord(body);
  const lines = [formatTable(body.items)];
  if (typeof body.nextCursor === "string" && body.nextCursor !== "") {
    lines.push("", `more: ${nextCommand(body.nextCursor)}`);
  }
  return lines.join("\n");
}

/**
 * A page of usage records as one line per call: when, what it was charged, the provider and model,
 * its tokens, latency and charge basis, who made it (key, miner, validator) and its request id.
 * Records of other kinds show their description; anything else keeps its own shape.
 */
export function formatUsage(body: Json, nextCommand: (cursor: string) => string): string {
  if (!isRecord(body) || !Array.isArray(body.items)) return formatRecord(body);
  const rows = body.items.map((item) => {
    if (!isRecord(item)) return item;
    const meta = isRecord(item.metadata) ? item.metadata : {};
    return {
      at: item.at,
      costMicro: item.amountMicro,
      call: item.description,
      tokens: meta.promptTokens === undefined ? undefined : `${meta.promptTokens}+${meta.completionTokens}`,
      latencyMs: meta.latencyMs,
      basis: meta.basis,
      keyId: item.keyId,
      miner: item.minerHotkey,
      validator: meta.validatorHotkey,
      requestId: meta.requestId,
    };
  });
  return formatPage({ ...body, items: rows }, nextCommand);
}

/** An answer carrying a freshly issued or rotated key: the key first, with the once-only warning. */
export function formatIssuedKey(body: Json): string {
  if (!isRecord(body) || typeof body.apiKey !== "string") return formatRecord(body);
  return [
    `apiKey  ${body.apiKey}`,
    "        (shown only now: store it in a secret manager; it cannot be shown again)",
    "",
    formatRecord(body.key),
  ].join("\n");
}
