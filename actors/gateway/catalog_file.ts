/**
 * The provider catalog file (`FGW_PROVIDERS_FILE`, docs/gateway.md, "Configuring providers (operators)"), validated by zod at start: every
 * problem is listed with its path in the file, and the file is named. API keys come from the
 * environment variables the file names, never from the file, and never appear in a message.
 */
import { z } from "zod";
import { isHeaderValue, NOT_A_HEADER_VALUE } from "../kernel/mod.ts";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  echoProvider,
  ProviderCatalog,
  type ProviderEntry,
} from "./provider_catalog.ts";
import { SecretValue } from "./secret_value.ts";

/** The dearest price accepted: 10^12 micro-credits (a million credits) per million tokens. */
const MAX_PRICE = 10n ** 12n;
/** The longest provider timeout accepted: 10 minutes. */
const MAX_TIMEOUT_MS = 600_000;

const price = z.string().regex(/^[0-9]{1,13}$/, "must be a string of decimal digits")
  .transform((digits) => BigInt(digits))
  .refine((value) => value <= MAX_PRICE, "must be at most 1000000000000 micro per million tokens");
const modelPrice = z.object({ inputMicroPerMTok: price, outputMicroPerMTok: price }).strict();
const markupBps = z.number().int().min(0).max(100_000);
const providerId = z.string().regex(
  /^[a-z0-9][a-z0-9._-]{0,63}$/,
  "must be 1..64 of a-z 0-9 . _ - (lower case)",
);

const model = z.object({
  id: z.string().min(1).max(200),
  inputMicroPerMTok: price,
  outputMicroPerMTok: price,
  maxOutputTokens: z.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_OUTPUT_TOKENS),
}).strict();

const remoteFields = {
  id: providerId,
  baseUrl: z.url({ protocol: /^https?$/ }),
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name").optional(),
  timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).default(DEFAULT_PROVIDER_TIMEOUT_MS),
  allowsAnyModel: z.boolean().default(false),
  anyModelPrice: modelPrice.optional(),
  models: z.array(model).default([]),
  markupBps: markupBps.optional(),
  extraBody: z.record(z.string(), z.unknown()).default({}),
};

type RemoteFields = z.infer<z.ZodObject<typeof remoteFields>>;

/** Checks across the fields of a remote provider. */
function checkRemote(provider: RemoteFields, ctx: z.RefinementCtx): void {
  const problem = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: "custom", path, message });
  if (provider.allowsAnyModel && !provider.anyModelPrice) {
    problem(["anyModelPrice"], "is required when allowsAnyModel is true");
  }
  if (!provider.allowsAnyModel && provider.anyModelPrice) {
    problem(["anyModelPrice"], "is only allowed when allowsAnyModel is true");
  }
  if (!provider.allowsAnyModel && provider.models.length === 0) {
    problem(["models"], "must list at least one model unless allowsAnyModel is true");
  }
  const seen = new Set<string>();
  provider.models.forEach((m, i) => {
    if (seen.has(m.id)) problem(["models", i, "id"], "is listed twice");
    seen.add(m.id);
  });
  for (const field of Object.keys(provider.extraBody).filter((f) => OWN_FIELDS.has(f))) {
    problem(["extraBody", field], "is set by the gateway itself and may not be overridden");
  }
}

const openAiProvider = z.object({
  ...remoteFields,
  kind: z.literal("openai"),
  tokenLimitParam: z.enum(["max_tokens", "max_completion_tokens"]).default("max_tokens"),
}).strict().superRefine(checkRemote);

const anthropicProvider = z.object({
  ...remoteFields,
  kind: z.literal("anthropic"),
  tokenLimitParam: z.literal("max_tokens", { error: "must be max_tokens for an anthropic provider" })
    .default("max_tokens"),
}).strict().superRefine(checkRemote);
/** Body fields the adapters set from the request (or must never be set: streaming, several choices). */
const OWN_FIELDS = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "stop",
  "stop_sequences",
  "stream",
  "n",
]);

const echoEntry = z.object({ id: providerId, kind: z.literal("echo") }).strict();

const catalogFile = z.object({
  markupBps: markupBps.default(0),
  providers: z.array(z.discriminatedUnion("kind", [openAiProvider, anthropicProvider, echoEntry])).min(1),
}).strict();

type RemoteProvider = z.infer<typeof openAiProvider> | z.infer<typeof anthropicProvider>;
type Env = Readonly<Record<string, string | undefined>>;

/**
 * Problems that need the whole file or the environment (duplicate ids, unset key variables),
 * read from the raw JSON so that they are listed beside the schema's own.
 */
function crossProblems(raw: unknown, env: Env): string[] {
  const providers = (raw as { providers?: unknown } | null)?.providers;
  if (!Array.isArray(providers)) return [];
  const problems: string[] = [];
  const seen = new Set<string>();
  providers.forEach((provider: unknown, i) => {
    const { id, kind, apiKeyEnv } = (provider ?? {}) as Record<string, unknown>;
    if (typeof id === "string" && seen.has(id)) problems.push(`providers.${i}.id: "${id}" is listed twice`);
    if (typeof id === "string") seen.add(id);
    if (kind === "echo" || typeof apiKeyEnv !== "string") return;
    const key = env[apiKeyEnv]?.trim();
    if (!key) problems.push(`providers.${i}.apiKeyEnv: environment variable ${apiKeyEnv} is not set`);
    else if (!isHeaderValue(key)) {
      problems.push(`providers.${i}.apiKeyEnv: environment variable ${apiKeyEnv} ${NOT_A_HEADER_VALUE}`);
    }
  });
  return problems;
}

function remoteEntry(provider: RemoteProvider, options: { env: Env; markupBps: number }): ProviderEntry {
  // Leading and trailing whitespace (a key pasted with its line break) is no part of the key.
  const key = provider.apiKeyEnv === undefined ? undefined : options.env[provider.apiKeyEnv]?.trim();
  return {
    id: provider.id,
    kind: provider.kind,
    baseUrl: provider.baseUrl.replace(/\/+$/, ""),
    apiKey: key ? new SecretValue(key) : null,
    timeoutMs: provider.timeoutMs,
    allowsAnyModel: provider.allowsAnyModel,
    anyModelPrice: provider.anyModelPrice ?? null,
    models: provider.models,
    markupBps: provider.markupBps ?? options.markupBps,
    tokenLimitParam: provider.tokenLimitParam,
    extraBody: provider.extraBody,
  };
}

function refusal(path: string, problems: readonly string[]): TypeError {
  return new TypeError(`Invalid provider catalog ${path}:\n${problems.map((p) => `  ${p}`).join("\n")}`);
}

/**
 * The catalog described by `text` (the file's content; `path` names it in errors); throws a
 * `TypeError` listing every problem, one per line.
 */
export function parseProviderCatalog(text: string, options: { path: string; env: Env }): ProviderCatalog {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw refusal(options.path, [`not JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const parsed = catalogFile.safeParse(raw);
  const problems = [
    ...(parsed.success
      ? []
      : parsed.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`)),
    ...crossProblems(raw, options.env),
  ];
  if (!parsed.success || problems.length > 0) throw refusal(options.path, problems);
  const file = parsed.data;
  return new ProviderCatalog(
    file.providers.map((provider) =>
      provider.kind === "echo"
        ? echoProvider(provider.id)
        : remoteEntry(provider, { env: options.env, markupBps: file.markupBps })
    ),
  );
}

/**
 * The catalog of `FGW_PROVIDERS_FILE`: the file at `path`, or only the built-in `echo` provider
 * when `path` is undefined. `env` (default the process environment) holds the API keys.
 */
export async function loadProviderCatalog(
  path: string | undefined,
  options: { env?: Env } = {},
): Promise<ProviderCatalog> {
  if (path === undefined) return ProviderCatalog.builtIn();
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw refusal(path, [`cannot read the file: ${error instanceof Error ? error.message : String(error)}`]);
  }
  return parseProviderCatalog(text, { path, env: options.env ?? Deno.env.toObject() });
}
