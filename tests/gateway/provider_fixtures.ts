import {
  type ProviderEntry,
  ProviderError,
  type ProviderHttpOptions,
  SecretValue,
} from "../../actors/gateway/mod.ts";
import type { AttemptOutcome } from "../../actors/kernel/mod.ts";

/** A catalog entry for a fake provider at `baseUrl`. */
export function fakeProvider(
  kind: "openai" | "anthropic",
  baseUrl: string,
  overrides: Partial<ProviderEntry> = {},
): ProviderEntry {
  const model = kind === "openai" ? "gpt-test" : "claude-test";
  return {
    id: `fake-${kind}`,
    kind,
    baseUrl,
    apiKey: new SecretValue(kind === "openai" ? "sk-test-openai" : "sk-ant-test"),
    timeoutMs: 5_000,
    allowsAnyModel: false,
    anyModelPrice: null,
    models: [{
      id: model,
      inputMicroPerMTok: 1_000_000n,
      outputMicroPerMTok: 2_000_000n,
      maxOutputTokens: 1000,
    }],
    markupBps: 0,
    tokenLimitParam: "max_tokens",
    extraBody: {},
    ...overrides,
  };
}

/** HTTP options that never really wait between attempts, and the attempts seen. */
export function recordedHttp(): ProviderHttpOptions & { attempts: AttemptOutcome[] } {
  const attempts: AttemptOutcome[] = [];
  return {
    attempts,
    sleep: () => Promise.resolve(),
    observer: { onAttempt: (_upstream, _ms, outcome) => attempts.push(outcome) },
  };
}

/** The ProviderError `promise` rejects with. */
export async function providerErrorOf(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error("Expected the call to fail");
}

/** A local URL nothing listens on: connections to it are refused. */
export function refusedUrl(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return `http://127.0.0.1:${port}`;
}
