import assert from "node:assert/strict";
import { loadConfig } from "../../../scripts/service/config.ts";
import { createGateway, StartupRefusal } from "../../../scripts/service/gateway_wiring.ts";
import { createService } from "../../../scripts/service/service.ts";
import { openTestService } from "../../support/test_service.ts";

/** Writes a provider catalog to a temporary file; returns its path. */
async function catalogFile(catalog: unknown): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "fgw_providers_", suffix: ".json" });
  await Deno.writeTextFile(path, JSON.stringify(catalog));
  return path;
}

/** Only what Deno itself needs: nothing of the test run's own configuration leaks in. */
function inherited(): Record<string, string> {
  const names = ["HOME", "PATH", "DENO_DIR", "TMPDIR", "XDG_CACHE_HOME"];
  return Object.fromEntries(names.flatMap((name) => {
    const value = Deno.env.get(name);
    return value === undefined ? [] : [[name, value]];
  }));
}

function remote(id: string, timeoutMs?: number) {
  return {
    id,
    kind: "openai",
    baseUrl: "http://127.0.0.1:9/v1",
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    models: [{ id: "m", inputMicroPerMTok: "1", outputMicroPerMTok: "1" }],
  };
}

Deno.test("without a providers file the service boots on its defaults with only the echo provider", async () => {
  await using service = await openTestService();
  assert.deepEqual(service.gateway.catalog.listing(), {
    providers: [{ id: "echo", models: ["echo-1"], allowsAnyModel: false }],
  });
  assert.equal(service.gateway.adapters.get("echo").constructor.name, "EchoAdapter");
});

Deno.test("the default hold TTL and shutdown grace cover a provider with the default timeout", async () => {
  const path = await catalogFile({ providers: [remote("openai")] });
  try {
    const config = loadConfig({ FGW_PROVIDERS_FILE: path });
    const gateway = await createGateway(config);
    assert.deepEqual(gateway.catalog.listing().providers.map((p) => p.id), ["openai"]);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("the sample catalog of docs/gateway.md boots on the default settings", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/gateway.md", import.meta.url));
  const path = await catalogFile(JSON.parse(/```json\n([\s\S]*?)```/.exec(doc)![1]!));
  try {
    const env = { OPENAI_API_KEY: "k1", OPENROUTER_API_KEY: "k2", ANTHROPIC_API_KEY: "k3" };
    const gateway = await createGateway(loadConfig({ FGW_PROVIDERS_FILE: path }), { env });
    assert.equal(gateway.catalog.providers.length, 5);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("a provider slower than the shutdown grace or the hold TTL allows refuses the start, saying why", async () => {
  const path = await catalogFile({ providers: [remote("fast", 5_000), remote("slow", 120_000)] });
  try {
    const config = loadConfig({ FGW_PROVIDERS_FILE: path, FGW_HOLD_TTL_MS: "100000" });
    const refusal = await createService(config).then(
      () => assert.fail("the service started"),
      (error: unknown) => error,
    );
    assert.ok(refusal instanceof StartupRefusal);
    const lines = refusal.message.split("\n");
    assert.match(lines[0]!, /^Refusing to start: .* provider catalog .*fgw_providers_/);
    assert.match(lines[1]!, /FGW_HOLD_TTL_MS \(100000\) must exceed .*"slow".* = 131000 ms/);
    assert.match(lines[2]!, /FGW_SHUTDOWN_GRACE_MS \(75000\) must cover .* = 131000 ms/);
    const longer = loadConfig({
      FGW_PROVIDERS_FILE: path,
      FGW_HOLD_TTL_MS: "131001",
      FGW_SHUTDOWN_GRACE_MS: "131000",
    });
    assert.equal((await createGateway(longer)).catalog.providers.length, 2);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("an invalid providers file refuses the start with the catalog's problems", async () => {
  const path = await catalogFile({ providers: [{ ...remote("openai"), timeoutMS: 5 }] });
  try {
    await assert.rejects(
      createGateway(loadConfig({ FGW_PROVIDERS_FILE: path })),
      (error: unknown) =>
        error instanceof StartupRefusal && /Invalid provider catalog/.test(error.message) &&
        /providers\.0/.test(error.message),
    );
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("the start command refuses a catalog it cannot run with exit status 2 and the reason", async () => {
  const path = await catalogFile({ providers: [remote("slow", 120_000)] });
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../../scripts/service/start.ts", import.meta.url).pathname],
      clearEnv: true,
      env: { ...inherited(), FGW_PROVIDERS_FILE: path },
      stderr: "piped",
      stdout: "null",
    }).output();
    assert.equal(output.code, 2);
    assert.match(new TextDecoder().decode(output.stderr), /FGW_SHUTDOWN_GRACE_MS \(75000\) must cover/);
  } finally {
    await Deno.remove(path);
  }
});
