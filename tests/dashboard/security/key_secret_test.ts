/**
 * A key's secret made in the dashboard appears in exactly one answer (the page after the create or
 * rotate that made it), never in the service's logs, never in storage in clear (every KV entry and
 * every PostgreSQL row searched), and in no later page.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { LogLine } from "../../../actors/kernel/mod.ts";
import { openKvStorage } from "../../../storage/kv/kv_storage.ts";
import { openPgStorage } from "../../../storage/postgres/pg_storage.ts";
import type { Storage } from "../../../storage/storage.ts";
import { ADMIN_TOKEN } from "../../support/access.ts";
import { ORIGIN, type TestBrowser } from "../../support/dashboard.ts";
import { openTestDatabase } from "../../support/test_postgres.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";
import { buildWorld, DASHBOARD_ROUTES } from "./route_table.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };
const HTML = { accept: "text/html" };

/** A storage whose every stored byte can be read back as text, and how to close it. */
interface Scannable {
  storage: Storage;
  /** Every entry or row, as text (bytes as UTF-8 and as hex). */
  scan(): Promise<string[]>;
  close(): Promise<void>;
}

/** Strings and bytes anywhere in a KV key or value, as text. */
function textsOf(value: unknown, into: string[]): void {
  if (typeof value === "string") into.push(value);
  else if (value instanceof Uint8Array) into.push(new TextDecoder().decode(value), bytesToHex(value));
  else if (value instanceof Map) { for (const [k, v] of value) textsOf(k, into), textsOf(v, into); }
  else if (Array.isArray(value) || value instanceof Set) { for (const item of value) textsOf(item, into); }
  else if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) textsOf(item, into);
  } else into.push(String(value));
}

async function kvScannable(): Promise<Scannable> {
  const dir = await Deno.makeTempDir({ prefix: "fgw_secret_" });
  const path = `${dir}/store.sqlite`;
  const storage = await openKvStorage(path);
  return {
    storage,
    scan: async () => {
      const kv = await Deno.openKv(path);
      const texts: string[] = [];
      for await (const entry of kv.list({ prefix: [] })) textsOf([entry.key, entry.value], texts);
      kv.close();
      return texts;
    },
    close: () => Deno.remove(dir, { recursive: true }),
  };
}

async function pgScannable(): Promise<Scannable> {
  const db = await openTestDatabase();
  const storage = await openPgStorage(db.url, { maxConnections: db.maxConnections });
  return {
    storage,
    scan: async () => {
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        const tables = await sql<{ name: string }[]>`
          SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`;
        const texts: string[] = [];
        for (const { name } of tables) {
          const rows = await sql<{ row: string }[]>`SELECT row_to_json(t)::text AS row FROM ${sql(name)} t`;
          texts.push(...rows.map(({ row }) => row));
        }
        assert.ok(tables.length > 10, "the scan reads the schema's tables");
        return texts;
      } finally {
        await sql.end();
      }
    },
    close: () => db.close(),
  };
}

/** A form of the keys page posted with the CSRF token the page gives the browser. */
async function postForm(
  service: TestService,
  browser: TestBrowser,
  path: string,
  fields: [string, string][],
  answers: string[],
): Promise<Response> {
  const fetcher = (target: string, init?: RequestInit) => service.request(target, init);
  const page = await keep(await browser.fetch(fetcher, "/dashboard/keys", { headers: HTML }), answers);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  const answer = await browser.fetch(fetcher, path, {
    method: "POST",
    headers: { ...HTML, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([...fields, ["_csrf", csrf]]),
  });
  await keep(answer.clone(), answers);
  return answer;
}

/** Keeps an answer whole (status, headers, body) for the search; answers its body. */
async function keep(answer: Response, answers: string[]): Promise<string> {
  const body = await answer.text();
  answers.push(
    `${answer.status}\n${[...answer.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${body}`,
  );
  return body;
}

for (const [kind, open] of [["kv", kvScannable], ["postgres", pgScannable]] as const) {
  Deno.test({
    name:
      `a key's secret appears once, in the answer that shows it, never in logs, storage or later pages [${kind}]`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const scannable = await open();
      const logs: LogLine[] = [];
      try {
        await using service = await openTestService({
          env: ON,
          storage: scannable.storage,
          log: (line) => logs.push(line),
        });
        const world = await buildWorld(service);
        const owner = world.own.owner;
        const fetcher = (target: string, init?: RequestInit) => service.request(target, init);
        const answers: string[] = [];
        const shownSecret = async () => {
          const page = await keep(await owner.fetch(fetcher, "/dashboard/keys", { headers: HTML }), answers);
          return /<code id="new-api-key">([^<]+)<\/code>/.exec(page)?.[1];
        };
        const created = await postForm(service, owner, "/dashboard/keys", [
          ["name", "CI"],
          ["scopes", "billing:read"],
          ["rateLimitRpm", "30"],
        ], answers);
        assert.equal(created.status, 303);
        const first = await shownSecret();
        assert.match(first ?? "", /^fgw_[0-9a-f]{24}_/);
        const keyId = /^fgw_([0-9a-f]{24})_/.exec(first!)![1]!;
        const rotated = await postForm(service, owner, `/dashboard/keys/${keyId}/rotate`, [], answers);
        assert.equal(rotated.status, 303);
        const second = await shownSecret();
        assert.match(second ?? "", /^fgw_[0-9a-f]{24}_/);
        assert.notEqual(second, first);
        // Every page later, as the owner and the viewer.
        for (const [route, entry] of Object.entries(DASHBOARD_ROUTES)) {
          if (!route.startsWith("GET ")) continue;
          for (const browser of [owner, world.own.viewer]) {
            await keep(await browser.fetch(fetcher, entry.own(world).path, { headers: HTML }), answers);
          }
        }
        const logText = logs.map((line) =>
          JSON.stringify(line, (_k, v) => typeof v === "bigint" ? `${v}` : v)
        )
          .join("\n");
        const stored = await scannable.scan();
        for (const secret of [first!, second!]) {
          const secretPart = secret.slice(`fgw_${keyId}_`.length);
          const forms = [secret, secretPart, bytesToHex(utf8ToBytes(secretPart))];
          const showing = answers.filter((answer) => answer.includes(secretPart));
          assert.equal(showing.length, 1, "exactly one answer shows the secret");
          assert.match(showing[0]!, /^200\n/);
          for (const form of forms) {
            assert.ok(!logText.includes(form), "the logs never hold the secret");
            assert.ok(
              !stored.some((text) => text.includes(form)),
              `storage never holds the secret in clear (${kind})`,
            );
          }
        }
        assert.ok(stored.some((text) => text.includes(keyId)), "the scan sees the key's own record");
      } finally {
        await scannable.close();
      }
    },
  });
}
