import assert from "node:assert/strict";
import { runAdmin } from "../../../scripts/admin/admin.ts";
import { openTestService } from "../../support/test_service.ts";
import { ADMIN_TOKEN, HOTKEY_A } from "../../support/access.ts";

interface Run {
  code: number;
  out: string;
  err: string;
}

/** A live service on port 0 (its admin API on unless `serviceEnv` says otherwise) and a way to run the CLI against it. */
async function cliAgainstServer(serviceEnv: Record<string, string> = { FGW_ADMIN_TOKEN: ADMIN_TOKEN }) {
  const service = await openTestService({ env: serviceEnv });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
  const env = { FGW_URL: `http://127.0.0.1:${server.addr.port}`, FGW_ADMIN_TOKEN: ADMIN_TOKEN };
  const cli = async (...argv: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(argv, { env, out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  const close = async () => {
    await server.shutdown();
    await service.close();
  };
  return { cli, env, close, service };
}

Deno.test("admin CLI drives the whole admin API against a live server", async () => {
  const { cli, close } = await cliAgainstServer();
  try {
    const created = await cli("org", "create", "Acme Forecasts", "--json");
    assert.equal(created.code, 0, created.err);
    const orgId = JSON.parse(created.out).id as string;
    assert.equal((await cli("credits", "add", orgId, "2500000", "invoice-1")).code, 0);
    assert.equal((await cli("miner", "add", orgId, HOTKEY_A, "--default")).code, 0);
    const issued = await cli(
      "key",
      "issue",
      orgId,
      "--name",
      "ci",
      "--scopes",
      "billing:read,gateway:write",
      "--rpm",
      "60",
      "--pin",
      HOTKEY_A,
    );
    assert.equal(issued.code, 0, issued.err);
    const apiKey = /apiKey\s+(fgw_\S+)/.exec(issued.out)?.[1];
    assert.ok(apiKey, issued.out);
    assert.match(issued.out, /shown only now/);
    const keyId = apiKey.slice(4, 28);
    const shown = await cli("org", "show", orgId);
    assert.equal(shown.code, 0);
    assert.match(shown.out, /balanceMicro\s+2500000/);
    assert.match(shown.out, new RegExp(keyId));
    assert.ok(!shown.out.includes(apiKey));
    assert.match((await cli("key", "list", orgId)).out, new RegExp(`${keyId}.*billing:read,gateway:write`));
    const rotated = await cli("key", "rotate", keyId);
    assert.equal(rotated.code, 0);
    assert.ok(!rotated.out.includes(apiKey) && /apiKey\s+fgw_/.test(rotated.out));
    assert.match((await cli("key", "revoke", keyId)).out, /revokedAt\s+20/);
    assert.equal((await cli("key", "show", keyId)).code, 0);
    assert.equal((await cli("key", "delete", keyId)).out, `deleted ${keyId}`);
    const ledger = await cli("ledger", orgId, "--limit", "1");
    assert.equal(ledger.code, 0);
    assert.match(ledger.out, /credit\s+2500000/);
    assert.equal((await cli("usage", orgId)).out, "(none)");
    assert.equal((await cli("miner", "remove", orgId, HOTKEY_A)).code, 0);
  } finally {
    await close();
  }
});

Deno.test("admin CLI prints API errors readably and exits non-zero", async () => {
  const { cli, close } = await cliAgainstServer();
  try {
    const orgId = JSON.parse((await cli("org", "create", "Acme", "--json")).out).id as string;
    const bad = await cli(
      "key",
      "issue",
      orgId,
      "--name",
      "k",
      "--scopes",
      "billing:read,root",
      "--rpm",
      "sixty",
    );
    assert.equal(bad.code, 1);
    assert.match(bad.err, /^error: invalid_request \(HTTP 400\): Invalid body/);
    assert.match(bad.err, /scopes\.1: must be one of/);
    assert.match(bad.err, /rateLimitRpm: /);
    assert.match(bad.err, /requestId: /);
    const missing = await cli("key", "revoke", "0".repeat(24));
    assert.equal(missing.code, 1);
    assert.match(missing.err, /^error: not_found \(HTTP 404\)/);
    const raw = await cli("org", "show", "org_missing", "--json");
    assert.equal(raw.code, 1);
    assert.equal(JSON.parse(raw.err).error.code, "not_found");
  } finally {
    await close();
  }
});

Deno.test("admin CLI usage errors exit 2 with help; help exits 0; the token is never printed", async () => {
  const { cli, env, close } = await cliAgainstServer();
  try {
    const help = await cli("help");
    assert.equal(help.code, 0);
    for (
      const command of [
        "org create",
        "credits add",
        "miner add",
        "key issue",
        "key rotate",
        "ledger",
        "usage",
      ]
    ) {
      assert.ok(help.out.includes(command), command);
    }
    for (
      const argv of [["frobnicate"], ["org", "create"], ["key", "rotate", "a", "b"], [
        "ledger",
        "o",
        "--rpm",
        "1",
      ], [
        "org",
        "show",
        "o",
        "--bogus",
      ]]
    ) {
      const run = await cli(...argv);
      assert.equal(run.code, 2, argv.join(" "));
      assert.match(run.err, /^error: /);
    }
    const noScopes = await cli("key", "issue", "org_x", "--name", "k");
    assert.equal(noScopes.code, 2);
    assert.match(noScopes.err, /^error: key issue needs --scopes\n/);
    const out: string[] = [];
    const noToken = await runAdmin(["org", "show", "o"], {
      env: { FGW_URL: env.FGW_URL },
      out: (t) => out.push(t),
      err: (t) => out.push(t),
    });
    assert.equal(noToken.valueOf(), 2);
    const wrong = await runAdmin(["org", "show", "o"], {
      env: { FGW_URL: env.FGW_URL, FGW_ADMIN_TOKEN: "not-the-token-123456" },
      out: (t) => out.push(t),
      err: (t) => out.push(t),
    });
    assert.equal(wrong, 1);
    assert.ok(!out.join("\n").includes(ADMIN_TOKEN) && !out.join("\n").includes("not-the-token-123456"));
    const down = await runAdmin(["org", "show", "o"], {
      env: { FGW_URL: "http://127.0.0.1:1", FGW_ADMIN_TOKEN: ADMIN_TOKEN },
      out: (t) => out.push(t),
      err: (t) => out.push(t),
    });
    assert.equal(down, 1);
  } finally {
    await close();
  }
});

Deno.test("admin CLI usage prints each gateway call on one line, newest first, a page at a time", async () => {
  const { cli, close, service } = await cliAgainstServer();
  try {
    const orgId = JSON.parse((await cli("org", "create", "Acme", "--json")).out).id as string;
    assert.equal((await cli("credits", "add", orgId, "1000", "inv-1")).code, 0);
    assert.equal((await cli("miner", "add", orgId, HOTKEY_A, "--default")).code, 0);
    const issued = await cli(
      "key",
      "issue",
      orgId,
      "--name",
      "ci",
      "--scopes",
      "gateway:write",
      "--rpm",
      "60",
    );
    const apiKey = /apiKey\s+(fgw_\S+)/.exec(issued.out)![1]!;
    for (const [i, content] of ["first call", "second call!", "third"].entries()) {
      const response = await service.request("/v1/gateway/completions", {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          "content-type": "application/json",
          "x-request-id": `request-000${i}`,
        },
        body: JSON.stringify({
          provider: "echo",
          model: "echo-1",
          messages: [{ role: "user", content }],
          maxTokens: 8,
        }),
      });
      assert.equal(response.status, 200, await response.text());
    }
    const page = await cli("usage", orgId, "--limit", "2");
    assert.equal(page.code, 0, page.err);
    const lines = page.out.split("\n");
    assert.match(
      lines[0]!,
      /^at\s+costMicro\s+call\s+tokens\s+latencyMs\s+basis\s+keyId\s+miner\s+validator\s+requestId$/,
    );
    // "third": 5 bytes → 2 + 2 tokens; "second call!": 12 bytes → 3 + 3.
    assert.match(
      lines[1]!,
      new RegExp(
        `^20\\S+Z\\s+4\\s+echo/echo-1\\s+2\\+2\\s+0\\s+usage\\s+\\w+\\s+${HOTKEY_A}\\s+-\\s+request-0002$`,
      ),
    );
    assert.match(lines[2]!, /\s+6\s+echo\/echo-1\s+3\+3\s+.*request-0001$/);
    const more = /^more: admin usage (\S+) --cursor (\S+)$/.exec(lines.at(-1)!);
    assert.ok(more, page.out);
    const rest = await cli("usage", orgId, "--cursor", more[2]!);
    assert.match(rest.out.split("\n")[1]!, /\s+6\s+echo\/echo-1\s+3\+3\s+.*request-0000$/);
    assert.equal(rest.out.split("\n").length, 2);
  } finally {
    await close();
  }
});

Deno.test("admin CLI refuses a token that cannot be sent in a header, never printing it; whitespace around it is trimmed", async () => {
  for (
    const token of ["super-secret-admin\ntoken-0123456789", "super-secret-admin\u0001token", "super-secret-€"]
  ) {
    const out: string[] = [];
    let called = false;
    const code = await runAdmin(["org", "show", "o"], {
      env: { FGW_URL: "http://127.0.0.1:9", FGW_ADMIN_TOKEN: token },
      out: (t) => out.push(t),
      err: (t) => out.push(t),
      fetch: () => {
        called = true;
        return Promise.reject(new TypeError("unreachable"));
      },
    });
    assert.equal(code, 2);
    assert.equal(called, false, "nothing is sent");
    assert.match(out.join("\n"), /FGW_ADMIN_TOKEN cannot be sent in an HTTP header/);
    assert.ok(!out.join("\n").includes("super-secret"), "the token is never printed");
  }
  const sent: string[] = [];
  await runAdmin(["org", "show", "o"], {
    env: { FGW_URL: "http://127.0.0.1:9", FGW_ADMIN_TOKEN: " tok-0123456789\n" },
    out: () => {},
    err: () => {},
    fetch: (_url, init) => {
      sent.push(new Headers(init?.headers).get("authorization") ?? "");
      return Promise.resolve(new Response("{}", { status: 200 }));
    },
  });
  assert.deepEqual(sent, ["Bearer tok-0123456789"]);
});

Deno.test("admin CLI against a service started without FGW_ADMIN_TOKEN says the admin API is off and how to turn it on", async () => {
  const { cli, env, close, service } = await cliAgainstServer({});
  try {
    for (
      const argv of [["org", "show", "org_x"], ["org", "create", "Acme"], ["key", "revoke", "0".repeat(24)]]
    ) {
      const run = await cli(...argv);
      assert.equal(run.code, 1, argv.join(" "));
      assert.equal(
        run.err,
        [
          `error: the admin API is off on ${env.FGW_URL} (every /admin/v1 path answers 404 there)`,
          "  It is on only when the service is started with FGW_ADMIN_TOKEN set (at least 16 characters):",
          "    FGW_ADMIN_TOKEN=<a long secret> npx -y deno@2.9.6 task start",
          "  Then run this CLI with the same token: export FGW_ADMIN_TOKEN=<the same secret>",
        ].join("\n"),
      );
    }
    const raw = await cli("org", "show", "org_x", "--json");
    assert.equal(JSON.parse(raw.err).error.code, "not_found", "--json prints the answer as it is");
    const direct = await service.request("/admin/v1/orgs/org_x", {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(direct.status, 404, "the service itself still answers 404");
  } finally {
    await close();
  }
});

Deno.test("admin CLI prints an unknown-route 404 as it is when the admin API is on (a token-less request gets 401)", async () => {
  const sent: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(["org", "show", "org_x"], {
    env: { FGW_URL: "http://127.0.0.1:9", FGW_ADMIN_TOKEN: ADMIN_TOKEN },
    out: () => {},
    err: (t) => err.push(t),
    fetch: (_url, init) => {
      const authorized = new Headers(init?.headers).has("authorization");
      sent.push(`${init?.method} ${authorized ? "with token" : "without token"}`);
      const body = authorized
        ? { error: { code: "not_found", message: "No such route" } }
        : { error: { code: "unauthenticated", message: "Missing or invalid admin token" } };
      return Promise.resolve(Response.json(body, { status: authorized ? 404 : 401 }));
    },
  });
  assert.equal(code, 1);
  assert.deepEqual(sent, ["GET with token", "GET without token"]);
  assert.equal(err.join("\n"), "error: not_found (HTTP 404): No such route");
});

Deno.test("admin CLI key issue without --rpm issues a key of 60 requests per minute, as its help says", async () => {
  const { cli, close } = await cliAgainstServer();
  try {
    assert.match((await cli("help")).out, /key issue <orgId> .*\[--rpm N \(default 60\)\]/);
    const orgId = JSON.parse((await cli("org", "create", "Acme", "--json")).out).id as string;
    const issued = await cli("key", "issue", orgId, "--name", "ci", "--scopes", "billing:read", "--json");
    assert.equal(issued.code, 0, issued.err);
    assert.equal(JSON.parse(issued.out).key.rateLimitRpm, 60);
  } finally {
    await close();
  }
});

Deno.test("a service that cannot be reached is named, with the setting that names it", async () => {
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${closed.addr.port}`;
  closed.close();
  const err: string[] = [];
  const code = await runAdmin(["org", "show", "org_missing"], {
    env: { FGW_URL: url, FGW_ADMIN_TOKEN: ADMIN_TOKEN },
    out: () => {},
    err: (text) => err.push(text),
  });
  assert.equal(code, 1);
  assert.match(
    err.join("\n"),
    new RegExp(`^error: cannot reach ${url} \\(is the service running there\\? FGW_URL names it\\)`),
  );
});
