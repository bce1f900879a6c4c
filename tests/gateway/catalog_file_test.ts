import assert from "node:assert/strict";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  loadProviderCatalog,
  parseProviderCatalog,
  type ProviderCatalog,
} from "../../actors/gateway/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";

const OPENAI_KEY = "sk-live-openai-0123456789abcdef";
const ENV = {
  OPENAI_API_KEY: OPENAI_KEY,
  OPENROUTER_API_KEY: "sk-or-v1-secret",
  ANTHROPIC_API_KEY: "sk-ant-secret",
};

/** The sample file of docs/gateway.md, with one provider overriding the markup. */
const SAMPLE = {
  markupBps: 500,
  providers: [
    {
      id: "openai",
      kind: "openai",
      baseUrl: "https://api.openai.com/v1",
      apiKeyEnv: "OPENAI_API_KEY",
      timeoutMs: 60000,
      allowsAnyModel: false,
      models: [{ id: "gpt-4o-mini", inputMicroPerMTok: "150000", outputMicroPerMTok: "600000" }],
    },
    {
      id: "openrouter",
      kind: "openai",
      baseUrl: "https://openrouter.ai/api/v1/",
      apiKeyEnv: "OPENROUTER_API_KEY",
      allowsAnyModel: true,
      anyModelPrice: { inputMicroPerMTok: "5000000", outputMicroPerMTok: "15000000" },
      models: [{ id: "openai/gpt-4o", inputMicroPerMTok: "2500000", outputMicroPerMTok: "10000000" }],
      markupBps: 1000,
      tokenLimitParam: "max_completion_tokens",
      extraBody: { provider: { max_price: { prompt: 5, completion: 15 } } },
    },
    {
      id: "anthropic",
      kind: "anthropic",
      baseUrl: "https://api.anthropic.com",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      models: [{
        id: "claude-sonnet-4-5",
        inputMicroPerMTok: "3000000",
        outputMicroPerMTok: "15000000",
        maxOutputTokens: 64000,
      }],
    },
  ],
};

function sample(): ProviderCatalog {
  return parseProviderCatalog(JSON.stringify(SAMPLE), { path: "/etc/fgw/providers.json", env: ENV });
}

/** The message of the TypeError `parse` throws. */
function refusal(file: unknown, env: Record<string, string> = ENV): string {
  const text = typeof file === "string" ? file : JSON.stringify(file);
  try {
    parseProviderCatalog(text, { path: "/etc/fgw/providers.json", env });
  } catch (error) {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${error}`);
    return error.message;
  }
  assert.fail("the catalog was accepted");
}

Deno.test("the sample catalog resolves each model's price, limits and markup", () => {
  const catalog = sample();
  const mini = catalog.resolve("openai", "gpt-4o-mini");
  assert.deepEqual(mini.price, { inputMicroPerMTok: 150_000n, outputMicroPerMTok: 600_000n });
  assert.equal(mini.maxOutputTokens, DEFAULT_MAX_OUTPUT_TOKENS);
  assert.equal(mini.markupBps, 500); // the file's default
  assert.equal(mini.provider.timeoutMs, 60_000);
  assert.equal(mini.provider.tokenLimitParam, "max_tokens");
  assert.deepEqual(mini.provider.extraBody, {});
  const sonnet = catalog.resolve("anthropic", "claude-sonnet-4-5");
  assert.equal(sonnet.maxOutputTokens, 64_000);
  assert.equal(sonnet.provider.kind, "anthropic");
});

Deno.test("a provider that allows any model prices unlisted models at anyModelPrice and listed ones at theirs", () => {
  const catalog = sample();
  const any = catalog.resolve("openrouter", "meta-llama/llama-3.3-70b-instruct");
  assert.deepEqual(any.price, { inputMicroPerMTok: 5_000_000n, outputMicroPerMTok: 15_000_000n });
  assert.equal(any.maxOutputTokens, DEFAULT_MAX_OUTPUT_TOKENS);
  assert.equal(any.markupBps, 1000); // the provider's own markup
  assert.equal(any.provider.baseUrl, "https://openrouter.ai/api/v1"); // trailing slash dropped
  assert.equal(any.provider.tokenLimitParam, "max_completion_tokens");
  assert.deepEqual(any.provider.extraBody, { provider: { max_price: { prompt: 5, completion: 15 } } });
  const listed = catalog.resolve("openrouter", "openai/gpt-4o");
  assert.deepEqual(listed.price, { inputMicroPerMTok: 2_500_000n, outputMicroPerMTok: 10_000_000n });
});

Deno.test("unknown providers and models are 400 invalid_request naming the field", () => {
  const catalog = sample();
  const naming = (field: string) => (error: unknown) =>
    error instanceof ServiceError && error.code === "invalid_request" &&
    JSON.stringify(error.details).includes(`"field":"${field}"`);
  assert.throws(() => catalog.resolve("mistral", "x"), naming("provider"));
  assert.throws(() => catalog.resolve("openai", "gpt-5"), naming("model"));
  assert.throws(() => catalog.resolve("openrouter", ""), naming("model"));
});

Deno.test("the public listing names each provider's models and whether it allows any model", () => {
  assert.deepEqual(sample().listing(), {
    providers: [
      { id: "openai", models: ["gpt-4o-mini"], allowsAnyModel: false },
      { id: "openrouter", models: ["openai/gpt-4o"], allowsAnyModel: true },
      { id: "anthropic", models: ["claude-sonnet-4-5"], allowsAnyModel: false },
    ],
  });
});

Deno.test("without a file the catalog holds only the built-in echo provider, without markup", async () => {
  const catalog = await loadProviderCatalog(undefined, { env: {} });
  assert.deepEqual(catalog.listing(), {
    providers: [{ id: "echo", models: ["echo-1"], allowsAnyModel: false }],
  });
  const echo = catalog.resolve("echo", "echo-1");
  assert.deepEqual(echo.price, { inputMicroPerMTok: 1_000_000n, outputMicroPerMTok: 1_000_000n });
  assert.equal(echo.markupBps, 0);
  assert.equal(catalog.longestTimeoutMs(), 0);
});

Deno.test("a file may list the echo provider; its markup stays zero whatever the file's default", () => {
  const catalog = parseProviderCatalog(
    JSON.stringify({ markupBps: 700, providers: [{ id: "echo", kind: "echo" }, SAMPLE.providers[0]] }),
    { path: "p.json", env: ENV },
  );
  assert.equal(catalog.resolve("echo", "echo-1").markupBps, 0);
  assert.equal(catalog.resolve("openai", "gpt-4o-mini").markupBps, 700);
  assert.equal(catalog.longestTimeoutMs(), 60_000);
});

Deno.test("loadProviderCatalog reads the file and reads keys from the variables it names", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fgw_providers_" });
  try {
    const path = `${dir}/providers.json`;
    await Deno.writeTextFile(path, JSON.stringify(SAMPLE));
    const catalog = await loadProviderCatalog(path, { env: ENV });
    assert.equal(catalog.provider("openai")?.apiKey?.reveal(), OPENAI_KEY);
    await assert.rejects(loadProviderCatalog(`${dir}/missing.json`, { env: ENV }), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(
        error.message,
        new RegExp(`^Invalid provider catalog ${dir}/missing\\.json:\n  cannot read the file`),
      );
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every problem of a bad file is listed with its path, and the file is named", () => {
  const message = refusal({
    markupBps: -1,
    providers: [
      { id: "openai", kind: "openai", baseUrl: "ftp://x", apiKeyEnv: "NOT_SET", models: [] },
      {
        id: "openai",
        kind: "anthropic",
        baseUrl: "https://api.anthropic.com",
        tokenLimitParam: "max_completion_tokens",
        models: [{ id: "m", inputMicroPerMTok: 3, outputMicroPerMTok: "1.5" }, {
          id: "m",
          inputMicroPerMTok: "1",
          outputMicroPerMTok: "1",
        }],
      },
      {
        id: "or",
        kind: "openai",
        baseUrl: "https://openrouter.ai/api/v1",
        allowsAnyModel: true,
        stream: true,
      },
      { id: "x", kind: "vertex" },
      {
        id: "e",
        kind: "openai",
        baseUrl: "https://e.example",
        models: [],
        extraBody: { stream: true, model: "x" },
      },
    ],
  });
  const lines = message.split("\n");
  assert.equal(lines[0], "Invalid provider catalog /etc/fgw/providers.json:");
  const expected = [
    "markupBps",
    "providers.0.baseUrl",
    "providers.0.models",
    "providers.1.tokenLimitParam",
    "providers.1.models.0.inputMicroPerMTok",
    "providers.1.models.0.outputMicroPerMTok",
    "providers.2",
    "providers.3.kind",
    "providers.4.extraBody.stream",
    "providers.4.extraBody.model",
    "providers.1.id",
    "providers.0.apiKeyEnv",
  ];
  for (const path of expected) {
    assert.ok(lines.some((line) => line.startsWith(`  ${path}:`)), `no line for ${path} in:\n${message}`);
  }
  assert.match(message, /providers\.1\.id: "openai" is listed twice/);
  assert.match(message, /providers\.0\.apiKeyEnv: environment variable NOT_SET is not set/);
});

Deno.test("a catalog that is not JSON, or lists no provider, is refused", () => {
  assert.match(
    refusal("{ not json"),
    /^Invalid provider catalog \/etc\/fgw\/providers\.json:\n {2}not JSON: /,
  );
  assert.match(refusal({ providers: [] }), /providers: /);
  assert.match(
    refusal({
      providers: [{
        id: "or",
        kind: "openai",
        baseUrl: "https://a.example",
        models: [],
        anyModelPrice: { inputMicroPerMTok: "1", outputMicroPerMTok: "1" },
      }],
    }),
    /anyModelPrice: is only allowed when allowsAnyModel is true/,
  );
  assert.match(refusal({ providers: [{ id: "e", kind: "echo", markupBps: 5 }] }), /providers\.0: /);
  const expensive = { id: "m", inputMicroPerMTok: "1000000000001", outputMicroPerMTok: "1" };
  assert.match(
    refusal({ providers: [{ id: "p", kind: "openai", baseUrl: "https://a.example", models: [expensive] }] }),
    /inputMicroPerMTok: must be at most/,
  );
});

Deno.test("API keys never show in the catalog's JSON, inspection, strings or refusals", () => {
  const catalog = sample();
  const secrets = Object.values(ENV);
  const renderings = [
    JSON.stringify(catalog),
    Deno.inspect(catalog, { depth: Infinity, showHidden: true }),
    Deno.inspect(catalog.providers, { depth: Infinity, showHidden: true }),
    `${catalog.provider("openai")?.apiKey}`,
    String(Object.entries(catalog.provider("anthropic")!)),
    refusal({ ...SAMPLE, markupBps: "x" }),
  ];
  for (const text of renderings) {
    for (const secret of secrets) assert.ok(!text.includes(secret), `a key shows in: ${text}`);
  }
  const json = JSON.parse(JSON.stringify(catalog));
  assert.equal(json.providers[0].apiKey, "[redacted]");
  assert.equal(json.providers[0].models[0].inputMicroPerMTok, "150000");
  assert.equal(catalog.provider("openai")?.apiKey?.reveal(), OPENAI_KEY);
});

Deno.test("the sample file in docs/gateway.md is a valid catalog", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/gateway.md", import.meta.url));
  const sampleFile = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(sampleFile, "docs/gateway.md has no json block");
  const catalog = parseProviderCatalog(sampleFile, { path: "docs/gateway.md", env: ENV });
  assert.deepEqual(catalog.listing().providers.map((p) => p.id), [
    "openai",
    "openrouter",
    "anthropic",
    "local",
    "echo",
  ]);
  assert.equal(catalog.resolve("openrouter", "any/model").markupBps, 800);
  assert.equal(catalog.resolve("local", "llama3.1:8b").provider.apiKey, null);
});

Deno.test("a key that cannot be sent in a header (a line break inside, a character beyond U+00FF) is refused at start, its value not shown", () => {
  const file = (apiKeyEnv: string) => ({
    providers: [{
      id: "p",
      kind: "openai",
      baseUrl: "https://p.example",
      apiKeyEnv,
      models: [{ id: "m", inputMicroPerMTok: "1", outputMicroPerMTok: "1" }],
    }],
  });
  for (
    const key of [
      "sk-LEAKME\n-123",
      "sk-LEAKME\r-123",
      "sk-LEAKME\0",
      "sk-LEAKME-€",
      "sk-LEAKME\x01",
      "sk-LEAKME\x7f",
    ]
  ) {
    const message = refusal(file("WRAPPED_KEY"), { WRAPPED_KEY: key });
    assert.match(
      message,
      /providers\.0\.apiKeyEnv: environment variable WRAPPED_KEY cannot be sent in an HTTP header/,
    );
    assert.doesNotMatch(message, /LEAKME/);
  }
  // Whitespace around the key (a key pasted with its line break) is trimmed, never sent.
  for (const padded of ["sk-ok\n", "\nsk-ok", " sk-ok "]) {
    const catalog = parseProviderCatalog(JSON.stringify(file("K")), { path: "/p.json", env: { K: padded } });
    assert.equal(catalog.provider("p")?.apiKey?.reveal(), "sk-ok", JSON.stringify(padded));
  }
});
