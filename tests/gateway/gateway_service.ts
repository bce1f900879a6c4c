/**
 * A whole service for gateway route tests: the admin API on, a provider catalog file naming the
 * fake OpenAI server (`fake`, prices 1,000,000 / 2,000,000 micro per MTok, markup 500 bps, 300 ms
 * per attempt) beside the built-in `echo`, and a funded org with a `gateway:write` key.
 */
import assert from "node:assert/strict";
import type { Storage } from "../../storage/storage.ts";
import {
  addCredits,
  ADMIN_TOKEN,
  adminInit,
  createOrg,
  issueKey,
  type Requester,
} from "../support/access.ts";
import { FakeOpenAi, type FakeOpenAiOptions } from "../support/fake_openai.ts";
import { openTestService, type TestService } from "../support/test_service.ts";

export const COMPLETIONS = "/v1/gateway/completions";
export const FAKE_KEY_ENV = { FAKE_OPENAI_KEY: "sk-test-openai" };
export const FAKE_MESSAGES = [{ role: "user" as const, content: "Will it rain?" }]; // 13 bytes
/** A call to the fake: its hold is 300 (128 + 16 + 13 = 157 prompt + 2 × 64 = 285, markup 15). */
export const FAKE_CALL = { provider: "fake", model: "gpt-test", messages: FAKE_MESSAGES, maxTokens: 64 };
export const FAKE_HOLD = 300n;
export const ECHO_MESSAGES = [{ role: "user" as const, content: "Hello, gateway!" }]; // 15 bytes
/** An echo call: held 128 + 16 + 15 + 16 = 175; charged 4 + 4 = 8 (1 micro a token, no markup). */
export const ECHO_CALL = { provider: "echo", model: "echo-1", messages: ECHO_MESSAGES, maxTokens: 16 };
export const ECHO_HOLD = 175n;
export const ECHO_COST = 8n;

/**
 * The provider catalog of the tests: the fake OpenAI server (its answers awaited `timeoutMs`,
 * default 300, which the "slow" answer outlasts) and the built-in echo.
 */
export function providersFor(fake: FakeOpenAi | null, timeoutMs = 300): unknown {
  const remote = fake && {
    id: "fake",
    kind: "openai",
    baseUrl: fake.baseUrl,
    apiKeyEnv: "FAKE_OPENAI_KEY",
    timeoutMs,
    models: [
      { id: "gpt-test", inputMicroPerMTok: "1000000", outputMicroPerMTok: "2000000" },
      // Listed, but the fake does not serve it (404 model_not_found).
      { id: "gpt-retired", inputMicroPerMTok: "1000000", outputMicroPerMTok: "2000000" },
    ],
  };
  return { markupBps: 500, providers: [...(remote ? [remote] : []), { id: "echo", kind: "echo" }] };
}

export interface GatewayWorld {
  service: TestService;
  /** Opens another instance of the service on `storage` (the same store), configured alike. */
  openPeer(storage: Storage): Promise<TestService>;
  fake: FakeOpenAi;
  orgId: string;
  apiKey: string;
  keyId: string;
  /** `POST /v1/gateway/completions` with the world's key (or `apiKey`). */
  complete(body: unknown, options?: { apiKey?: string; headers?: Record<string, string> }): Promise<Response>;
  /** `GET /v1/credits/balance`'s `balanceMicro` for the world's org. */
  balance(): Promise<string>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface GatewayWorldOptions {
  creditMicro?: string;
  fake?: FakeOpenAiOptions;
  env?: Record<string, string>;
  storage?: Storage;
  /** Terms of the world's key (scopes default `gateway:write`, `billing:read`). */
  key?: Record<string, unknown>;
  /**
   * How long the fake's answers are awaited (default 300 ms). Races of hundreds of calls on a
   * loaded host give it more: an answer later than 300 ms is not what they test.
   */
  providerTimeoutMs?: number;
}

export async function gatewayWorld(options: GatewayWorldOptions = {}): Promise<GatewayWorld> {
  const fake = new FakeOpenAi(options.fake ?? {});
  const providersFile = await Deno.makeTempFile({ prefix: "fgw_providers_", suffix: ".json" });
  await Deno.writeTextFile(providersFile, JSON.stringify(providersFor(fake, options.providerTimeoutMs)));
  const env = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PROVIDERS_FILE: providersFile, ...options.env };
  const service = await openTestService({
    env,
    providerEnv: FAKE_KEY_ENV,
    ...(options.storage ? { storage: options.storage } : {}),
  });
  const peers: TestService[] = [];
  const orgId = await createOrg(service.request);
  const credit = options.creditMicro ?? "1000000";
  if (credit !== "0") await addCredits(service.request, orgId, credit, "initial");
  const issued = await issueKey(service.request, orgId, {
    scopes: ["gateway:write", "billing:read"],
    rateLimitRpm: 1_000,
    ...options.key,
  });
  return {
    service,
    openPeer: async (storage) => {
      const peer = await openTestService({ env, providerEnv: FAKE_KEY_ENV, storage });
      peers.push(peer);
      return peer;
    },
    fake,
    orgId,
    apiKey: issued.apiKey,
    keyId: issued.key.keyId,
    complete: (body, opts = {}) =>
      service.request(COMPLETIONS, completionInit(opts.apiKey ?? issued.apiKey, body, opts.headers)),
    balance: async () => {
      const response = await service.request("/v1/credits/balance", {
        headers: { authorization: `Bearer ${issued.apiKey}` },
      });
      assert.equal(response.status, 200);
      return (await response.json()).balanceMicro;
    },
    async [Symbol.asyncDispose]() {
      // Storage handles belong to whoever opened them (an adapter test closes its own).
      if (options.storage) {
        for (const instance of [service, ...peers]) await instance.actors.drain();
      } else {
        await service.close();
      }
      await fake.close();
      await Deno.remove(providersFile);
    },
  };
}

/**
 * A completion request with `apiKey`, with its Content-Length as an HTTP client sends it (the route
 * reserves the hold early only for a body of known length: actors/gateway/early_hold.ts).
 */
export function completionInit(
  apiKey: string,
  body: unknown,
  headers: Record<string, string> = {},
): RequestInit {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const length = String(new TextEncoder().encode(text).length);
  return {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      "content-length": length,
      ...headers,
    },
    body: text,
  };
}

/** Registers `hotkey` to `orgId` through the admin API. */
export async function registerMiner(
  request: Requester,
  orgId: string,
  hotkey: string,
  options: { default?: boolean } = {},
): Promise<void> {
  const body = { hotkey, ...(options.default ? { default: true } : {}) };
  const response = await request(`/admin/v1/orgs/${orgId}/miners`, adminInit("POST", body));
  assert.equal(response.status, 201, await response.text());
}

/** The org's usage records through the admin API, newest first (one page of up to 200). */
export async function usageOf(request: Requester, orgId: string): Promise<Record<string, unknown>[]> {
  const response = await request(`/admin/v1/orgs/${orgId}/usage?limit=200`, adminInit("GET"));
  assert.equal(response.status, 200);
  return (await response.json()).items;
}
