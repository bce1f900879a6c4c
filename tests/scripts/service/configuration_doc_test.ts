/**
 * docs/configuration.md holds the one table of settings: it must say what the config schema
 * (scripts/service/config.ts) reads, with the schema's defaults, and nothing the schema lacks.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { configSchema, loadConfig } from "../../../scripts/service/config.ts";

const DOC = new URL("../../../docs/configuration.md", import.meta.url);
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** How the table writes a setting without a default. */
const UNSET = "—";

/**
 * Defaults that depend on the machine, written in words: the documented text, and the value the
 * schema must give on this machine.
 */
const MACHINE_DEFAULTS: Record<string, { text: string; value: () => unknown }> = {
  FGW_VERIFY_WORKERS: {
    text: "CPUs, at most 4 (0 on one CPU)",
    value: () => {
      const cpus = navigator.hardwareConcurrency ?? 1;
      return cpus < 2 ? 0 : Math.min(4, cpus);
    },
  },
};

interface Row {
  name: string;
  defaultText: string;
}

/** The rows of the table under "## Settings": the setting's name and its default cell. */
async function documentedRows(): Promise<Row[]> {
  const doc = await Deno.readTextFile(DOC);
  const section = doc.split(/^## /m).find((part) => part.startsWith("Settings\n"));
  assert.ok(section, 'docs/configuration.md has no "## Settings" section');
  const rows: Row[] = [];
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
    const name = /^`([A-Z0-9_]+)`$/.exec(cells[0] ?? "")?.[1];
    assert.ok(name, `a row must name one setting in its first cell: ${line}`);
    const defaultCell = cells[1] ?? "";
    rows.push({ name, defaultText: /^`(.*)`$/.exec(defaultCell)?.[1] ?? defaultCell });
  }
  return rows;
}

/** A default value as the table writes it. */
function asWritten(value: unknown): string {
  if (value === undefined) return UNSET;
  if (typeof value === "boolean") return value ? "1" : "0";
  if (Array.isArray(value)) return value.length === 0 ? UNSET : value.join(",");
  if (typeof value === "string" && value.startsWith(REPO_ROOT)) return value.slice(REPO_ROOT.length);
  return String(value);
}

const settings = Object.keys(configSchema.shape).toSorted();

Deno.test("docs/configuration.md lists every setting of the config schema exactly once", async () => {
  const names = (await documentedRows()).map((row) => row.name);
  for (const setting of settings) {
    assert.equal(names.filter((name) => name === setting).length, 1, `${setting} must have one row`);
  }
});

Deno.test("docs/configuration.md names no setting the config schema lacks", async () => {
  const unknown = (await documentedRows()).map((row) => row.name).filter((name) => !settings.includes(name));
  assert.deepEqual(unknown, []);
});

Deno.test("each default in docs/configuration.md is the config schema's default", async () => {
  const defaults: Record<string, unknown> = loadConfig({});
  for (const { name, defaultText } of await documentedRows()) {
    const machine = MACHINE_DEFAULTS[name];
    if (machine) {
      assert.equal(defaultText, machine.text, `${name}: the default is written in words`);
      assert.equal(defaults[name], machine.value(), `${name}: the schema's default on this machine`);
      continue;
    }
    assert.equal(defaultText, asWritten(defaults[name]), `${name}: the documented default`);
  }
});
