import assert from "node:assert/strict";
import { exposedWithoutProxy } from "../../../scripts/service/start.ts";
import { ADMIN_TOKEN } from "../../support/access.ts";

/** Only what Deno itself needs: nothing of the test run's own configuration leaks in. */
function inherited(): Record<string, string> {
  const names = ["HOME", "PATH", "DENO_DIR", "TMPDIR", "XDG_CACHE_HOME"];
  return Object.fromEntries(names.flatMap((name) => {
    const value = Deno.env.get(name);
    return value === undefined ? [] : [[name, value]];
  }));
}

interface Started {
  url: string;
  process: Deno.ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<void>;
}

/** Runs `scripts/service/start.ts` as the README's start command does, offline, on a fresh data dir. */
async function startServer(dataDir: string): Promise<Started> {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../../scripts/service/start.ts", import.meta.url).pathname],
    clearEnv: true,
    env: {
      ...inherited(),
      FGW_PORT: "0",
      FGW_DATA_DIR: dataDir,
      FGW_GAMMA_URL: "http://127.0.0.1:9",
      FGW_SUBTENSOR_URL: "http://127.0.0.1:9",
      FGW_ADMIN_TOKEN: ADMIN_TOKEN,
      FGW_IP_RPM: "0",
      // Generous: under a fully parallel test run the drain may be slow, and a forced exit is code 1.
      FGW_SHUTDOWN_GRACE_MS: "60000",
    },
    stderr: "piped",
    stdout: "null",
  }).spawn();
  const lines: Record<string, unknown>[] = [];
  const { promise: url, resolve: listening } = Promise.withResolvers<string>();
  const exited = (async () => {
    const stream = process.stderr.pipeThrough(new TextDecoderStream());
    let buffer = "";
    for await (const chunk of stream) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      for (const part of parts.filter((p) => p.startsWith("{"))) {
        const line = JSON.parse(part);
        lines.push(line);
        if (line.msg === "listening") listening(line.url);
      }
    }
  })();
  return { url: await url, process, lines, exited };
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Timed out waiting: ${what}`);
}

Deno.test("the start command boots offline, serves the snapshot, and stops cleanly on SIGTERM", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "fgw_start_" });
  const server = await startServer(dataDir);
  try {
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    await waitFor(async () => (await fetch(`${server.url}/readyz`)).status === 200, "readyz");
    const listening = server.lines.find((line) => line.msg === "listening");
    assert.equal(listening?.dashboard, "off (set FGW_PUBLIC_URL to turn it on)");
    const events = await (await fetch(`${server.url}/v1/events?limit=3`)).json();
    assert.equal(events.items.length, 3);
    // The log reaches this process through a pipe, maybe after the answers that followed it.
    const logged = (test: (msg: string) => boolean) => () =>
      Promise.resolve(server.lines.some((line) => test(String(line.msg))));
    await waitFor(
      logged((msg) => msg === "market source unreachable; the catalog keeps serving its last data"),
      "the unreachable source logged",
    );
    await waitFor(
      logged((msg) => msg.startsWith("catalog loaded from the snapshot")),
      "the snapshot load logged",
    );
    const syncFailed = "metagraph sync failed; the last synced metagraph stays in use";
    await waitFor(
      () => Promise.resolve(server.lines.some((line) => line.msg === syncFailed)),
      "sync failure",
    );
    const failure = server.lines.find((line) => line.msg === syncFailed)!;
    assert.equal(failure.level, "warn");
    assert.equal(failure.nextAttemptInMs, 15_000, "retried after a backoff step, not at once");
    const metagraph = await fetch(`${server.url}/admin/v1/metagraph`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const body = await metagraph.json();
    assert.equal(body.status, "never_synced");
    assert.equal(body.neuronCount, 0);
    const stat = await Deno.stat(`${dataDir}/fgw.sqlite`);
    assert.ok(stat.isFile, "the KV store lives in the data directory");
  } finally {
    server.process.kill("SIGTERM");
    const status = await server.process.status;
    await server.exited;
    assert.equal(status.code, 0);
    assert.ok(server.lines.some((line) => line.msg === "stopped"));
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a bad configuration stops the start command with every problem listed", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../../scripts/service/start.ts", import.meta.url).pathname],
    clearEnv: true,
    env: { ...inherited(), FGW_PORT: "99999", FGW_STORAGE: "postgres" },
    stderr: "piped",
    stdout: "null",
  }).output();
  assert.equal(output.code, 2);
  const text = new TextDecoder().decode(output.stderr);
  assert.match(text, /FGW_PORT/);
  assert.match(text, /DATABASE_URL/);
});

Deno.test("a port already in use stops the start command with a message naming FGW_PORT", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dataDir = await Deno.makeTempDir();
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../../scripts/service/start.ts", import.meta.url).pathname],
      clearEnv: true,
      env: { ...inherited(), FGW_PORT: String(taken.addr.port), FGW_DATA_DIR: dataDir },
      stderr: "piped",
      stdout: "null",
    }).output();
    assert.equal(output.code, 2);
    const text = new TextDecoder().decode(output.stderr);
    assert.match(text, new RegExp(`127\\.0\\.0\\.1:${taken.addr.port} is already in use`));
    assert.match(text, /FGW_PORT/);
    assert.doesNotMatch(text, /Uncaught/);
  } finally {
    taken.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("listening beyond loopback with no trusted proxy is flagged (nothing times out slow clients)", () => {
  for (const host of ["127.0.0.1", "127.0.1.1", "localhost", "::1"]) {
    assert.equal(exposedWithoutProxy(host, []), false, host);
  }
  for (const host of ["0.0.0.0", "::", "10.0.0.5", "gateway.internal"]) {
    assert.equal(exposedWithoutProxy(host, []), true, host);
    assert.equal(exposedWithoutProxy(host, ["10.0.0.2"]), false, `${host} behind a proxy`);
  }
});
