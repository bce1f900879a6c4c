import { PAGE_PATHS } from "../../routes/pages/pages.ts";
import type { Requester } from "../support/access.ts";

/** The parts of an OpenAPI 3.1 document these tests read. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}

export interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  security?: Record<string, string[]>[];
  responses: Record<string, Response>;
}

export interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: unknown }>;
}

/** An operation of the app: its method (lowercase) and OpenAPI path (`/orgs/{orgId}`). */
export interface AppRoute {
  method: string;
  path: string;
}

/**
 * Every route the app answers, read from the app itself (`app.routes`): middleware mounted with
 * `use` (method ALL) is left out, and Hono's `:param` is written as OpenAPI's `{param}`.
 */
export function routesOf(app: { routes: readonly { method: string; path: string }[] }): AppRoute[] {
  const seen = new Map<string, AppRoute>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const path = route.path.replaceAll(/:([^/]+)/g, "{$1}");
    const method = route.method.toLowerCase();
    seen.set(`${method} ${path}`, { method, path });
  }
  return [...seen.values()];
}

/**
 * `routesOf(app)` without the web pages and the dashboard (HTML for people: not in the OpenAPI
 * document).
 */
export function apiRoutesOf(app: { routes: readonly { method: string; path: string }[] }): AppRoute[] {
  const pages = new Set(PAGE_PATHS.map((path) => path.replaceAll(/:([^/]+)/g, "{$1}")));
  return routesOf(app).filter((route) =>
    !(route.method === "get" && pages.has(route.path)) && !/^\/dashboard(\/|$)/.test(route.path)
  );
}

/** The app's OpenAPI document, fetched as a client would. */
export async function fetchDocument(request: Requester): Promise<OpenApiDocument> {
  const response = await request("/openapi.json");
  if (response.status !== 200) {
    throw new Error(`GET /openapi.json → ${response.status}: ${await response.text()}`);
  }
  return await response.json();
}

/** A request path for an OpenAPI path: each `{param}` replaced by `values[param]` or `"x"`. */
export function concretePath(path: string, values: Record<string, string> = {}): string {
  return path.replaceAll(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(values[name] ?? "x"));
}

/** Every `$ref` in `value`, recursively. */
export function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, found));
  else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string") found.push(inner);
      else refsIn(inner, found);
    }
  }
  return found;
}

/** True when the operation needs an API key (its security names the `apiKey` scheme). */
export function takesApiKey(operation: Operation): boolean {
  return (operation.security ?? []).some((requirement) => "apiKey" in requirement);
}
