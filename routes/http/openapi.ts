import { createRoute, OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, Env, Handler, MiddlewareHandler } from "hono";
import { z } from "zod";
import { type ErrorCode, ServiceError } from "../../actors/kernel/mod.ts";
import type { ApiKeyScope } from "../../storage/api_key_store.ts";
import { type Alongside, type ApiKeyAccess, apiKeyAuth } from "../middleware/api_key_auth.ts";
import { keyOrSignature, type SignatureAccess } from "../middleware/key_or_signature.ts";
import { STATUS_OF } from "../middleware/error_handler.ts";
import { DEFAULT_JSON_BODY_BYTES, jsonBodyGate } from "../middleware/json_body.ts";
import { noQueryParameters } from "./validation.ts";
import { ERROR_MEANING, ErrorBody, HEADER, headerRef, SECURITY } from "./openapi_components.ts";
import { invalidInput, refuseEmptyNames, singleValuedQuery } from "./validation.ts";

/**
 * Who may call a route: anyone (`public`), anyone and never IP-throttled (`probe`: health checks),
 * the operator's admin token (`admin`, checked for all of `/admin/v1` in the route table), an
 * API key holding `apiKey` (the scope), checked by `apiKeyAuth` on this route — or, with
 * `signature`, that request-signature scheme instead of the key (`keyOrSignature`) — or a request
 * signature alone (`{ signature }`, built by `signatureAccess`: the checks of docs/signatures.md around the
 * body).
 */
export type Access = "public" | "probe" | "admin" | KeyAccess | SignatureOnly;

/** A route that takes an sr25519 request signature and nothing else (the validator routes). */
export interface SignatureOnly {
  signature: SignatureAccess;
}

function isKeyAccess(access: Access): access is KeyAccess {
  return typeof access === "object" && "apiKey" in access;
}

function signatureOf(access: Access): SignatureAccess | undefined {
  return typeof access === "object" ? access.signature : undefined;
}

/** An API key with a scope, optionally or a request signature. */
export interface KeyAccess {
  apiKey: ApiKeyScope;
  keys: ApiKeyAccess;
  signature?: SignatureAccess;
  /** Work started while the key is checked (`apiKeyAuth`'s `alongside`; key routes without `signature`). */
  alongside?: Alongside;
}

/** A route as declared in `routes/<area>/`: the OpenAPI route plus who may call it. */
export interface RouteDeclaration extends Omit<RouteConfig, "security"> {
  access: Access;
  /**
   * Error codes the handler itself answers with. Those the declaration implies are added:
   * 500 always; 429 and 503 `unavailable` (the storage cannot be reached) unless `probe`; 401/404
   * for `admin`; 401/403/429 and `ASKS_ACTOR` for an API key; 400 for a query; 404 for path
   * parameters; 400/413/415 for a body.
   */
  errors?: readonly ErrorCode[];
  /** Largest JSON body taken (default 64 KiB); over it 413 `payload_too_large`. */
  maxBodyBytes?: number;
}

/** The route `defineRoute` returns, ready for `app.openapi(route, handler)`. */
export type DeclaredRoute<R extends RouteDeclaration> = Omit<R, "access" | "errors" | "maxBodyBytes">;

/**
 * What a route that asks an actor may answer besides its own errors: a conditional write that lost
 * its race more often than its retry bound (409), a full mailbox or a reply not in time (503,
 * docs/runtime.md).
 */
export const ASKS_ACTOR: readonly ErrorCode[] = ["conflict", "unavailable"];

/** An `OpenAPIHono` whose validation failures answer with the error body of docs/conventions.md. */
export function openApiApp<E extends Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({ defaultHook: refuseInvalidInput });
}

type ValidationResult =
  | { target: string; success: true }
  | { target: string; success: false; error: z.ZodError };

/**
 * The validation hook of every route: a query parameter without a name (checked on success too:
 * the parsed query leaves it out), a repeated one or a bad one → 400 naming the fields; a path
 * parameter built with `pathId` that cannot name a resource → 404 `not_found`; another bad path
 * parameter or body → 400 `invalid_request` naming the fields.
 */
export function refuseInvalidInput(result: ValidationResult, c: Context): void {
  if (result.target === "query") refuseEmptyNames(c.req.url);
  if (result.success) return;
  if (result.target === "query") {
    singleValuedQuery(c.req.queries(), c.req.url);
    throw invalidInput(result.error, "query parameters");
  }
  if (result.target === "param") {
    const missing = result.error.issues.find((issue) =>
      issue.code === "custom" && issue.params?.["notFound"]
    );
    if (missing) throw new ServiceError("not_found", missing.message);
    throw invalidInput(result.error, "path");
  }
  throw invalidInput(result.error, result.target === "json" ? "body" : result.target);
}

/**
 * A path parameter that names a resource: a value failing `test` can name none, so it answers 404
 * `not_found` with `notFound` as the message (and never reaches an actor or storage).
 */
export function pathId(test: (value: string) => boolean, notFound: string, meta: z.GlobalMeta = {}) {
  return z.string().refine(test, { message: notFound, params: { notFound: true } }).meta(meta);
}

/** A required, strict JSON request body: unknown fields are refused with 400. */
export function jsonBody<S extends z.ZodObject>(schema: S, description?: string) {
  return {
    required: true,
    ...(description === undefined ? {} : { description }),
    content: { "application/json": { schema: schema.strict() as unknown as S } },
  };
}

/** A JSON response of `schema`. */
export function jsonResponse<S extends z.ZodType>(schema: S, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/**
 * Declares a route once: its OpenAPI operation (security, success and error responses with their
 * headers) and the middleware its access and body need (`apiKeyAuth`, then the JSON body gate).
 */
export function defineRoute<const R extends RouteDeclaration>(declaration: R): DeclaredRoute<R> {
  const { access, errors = [], maxBodyBytes = DEFAULT_JSON_BODY_BYTES, ...route } = declaration;
  const body = route.request?.body;
  if (body && !body.required) throw new Error(`${route.path}: declare the body with jsonBody() (required)`);
  const auth = typeof access === "object" ? authMiddleware(access) : { before: [], after: [] };
  const middleware: MiddlewareHandler[] = [
    ...auth.before,
    ...(body ? jsonBodyGate(maxBodyBytes) : []),
    ...auth.after,
    ...(route.request?.query || access === "probe" ? [] : [noQueryParameters]),
    ...asArray(route.middleware),
  ];
  const codes = new Set([...impliedErrors(access, route.request), ...errors]);
  const security = securityOf(access);
  return createRoute({
    ...route,
    ...(middleware.length > 0 ? { middleware } : {}),
    ...(security ? { security } : {}),
    responses: { ...withHeaders(route.responses, access), ...errorResponses(codes, access) },
  } as RouteConfig) as unknown as DeclaredRoute<R>;
}

/**
 * Mounts `handler` for a declared route without the validators `app.openapi` would add: for a
 * handler that parses its input itself with the declared schemas (e.g. behind a cache, so that a
 * hit parses nothing). The route is in the document all the same.
 */
export function openapiSelfParsed<E extends Env>(
  app: OpenAPIHono<E>,
  route: RouteConfig,
  handler: Handler<E>,
): void {
  const { middleware, hide: _hide, ...config } = route;
  app.openAPIRegistry.registerPath(config);
  const path = config.path.replaceAll(/\/{(.+?)}/g, "/:$1");
  const method = config.method.toUpperCase();
  for (const step of asArray(middleware)) app.on(method, [path], step as MiddlewareHandler<E>);
  app.on(method, [path], handler);
}

/**
 * Key authentication, the key-or-signature pair, or the signature alone; the second half of a
 * signature runs after the body gate (it covers the raw body bytes, which the gate caps).
 */
function authMiddleware(
  access: KeyAccess | SignatureOnly,
): { before: MiddlewareHandler[]; after: MiddlewareHandler[] } {
  if (!isKeyAccess(access)) {
    return { before: [access.signature.beforeBody], after: [access.signature.afterBody] };
  }
  const { alongside } = access;
  const keyAuth = apiKeyAuth({
    scope: access.apiKey,
    access: access.keys,
    ...(alongside ? { alongside } : {}),
  });
  if (!access.signature) return { before: [keyAuth], after: [] };
  const { before, after } = keyOrSignature(keyAuth, access.signature);
  return { before: [before], after: [after] };
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function impliedErrors(access: Access, request: RouteConfig["request"]): ErrorCode[] {
  const codes: ErrorCode[] = ["internal_error"];
  if (access !== "probe") codes.push("rate_limited", "unavailable");
  if (access === "admin") codes.push("unauthenticated", "not_found");
  if (isKeyAccess(access)) codes.push("unauthenticated", "wrong_auth_scheme", "insufficient_scope");
  if (isKeyAccess(access)) codes.push(...ASKS_ACTOR);
  codes.push(...signatureOf(access)?.errors ?? []);
  if (request?.query || access !== "probe") codes.push("invalid_request");
  if (request?.params) codes.push("not_found");
  if (request?.body) codes.push("invalid_request", "unsupported_media_type", "payload_too_large");
  return codes;
}

function securityOf(access: Access): RouteConfig["security"] {
  if (access === "admin") return [{ [SECURITY.admin]: [] }];
  const signature = signatureOf(access);
  const signed = signature ? [{ [SECURITY[signature.role]]: [] }] : [];
  if (isKeyAccess(access)) return [{ [SECURITY.apiKey]: [access.apiKey] }, ...signed];
  return signature ? signed : undefined;
}

type Responses = RouteConfig["responses"];

/** The headers every response of a route carries (`status` undefined: a success). */
function headersOf(access: Access, status?: number): Record<string, { $ref: string }> {
  const headers: Record<string, { $ref: string }> = { [HEADER.requestId]: headerRef(HEADER.requestId) };
  if (isKeyAccess(access) && status !== 401) {
    headers[HEADER.rateLimitLimit] = headerRef(HEADER.rateLimitLimit);
    headers[HEADER.rateLimitRemaining] = headerRef(HEADER.rateLimitRemaining);
  }
  if (status === 429 || status === 503) headers[HEADER.retryAfter] = headerRef(HEADER.retryAfter);
  if (status === 401 && (typeof access !== "object" || isKeyAccess(access))) {
    headers[HEADER.wwwAuthenticate] = headerRef(HEADER.wwwAuthenticate);
  }
  return headers;
}

function withHeaders(responses: Responses, access: Access): Responses {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      if ("$ref" in response) return [status, response];
      return [status, { ...response, headers: { ...headersOf(access), ...response.headers } }];
    }),
  );
}

/** One response per status, its description naming each code it may carry. */
function errorResponses(codes: ReadonlySet<ErrorCode>, access: Access): Responses {
  const byStatus = Map.groupBy(codes, (code) => STATUS_OF[code]);
  const responses: Responses = {};
  for (const [status, group] of [...byStatus].toSorted(([a], [b]) => a - b)) {
    responses[status] = {
      description: group.map((code) => `\`${code}\`: ${ERROR_MEANING[code]}.`).join(" "),
      headers: headersOf(access, status),
      content: { "application/json": { schema: ErrorBody } },
    };
  }
  return responses;
}
