/**
 * How the CLI tells that the admin API is off on the service it talks to. A service started
 * without `FGW_ADMIN_TOKEN` answers every `/admin/v1` path with the 404 of an unknown route, token
 * or not; a service with the admin API on answers a request without a token 401 before routing
 * (docs/api_keys.md, "Issuing keys with the CLI"). The service says nothing more, so the CLI asks
 * twice: an unknown-route 404 to the command's request, and another to the same path without a
 * token, mean the admin API is off.
 */

/** An answer of the admin API: its status and parsed body. */
export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** The service's message for a path it does not route (`not_found`). */
const NO_SUCH_ROUTE = "No such route";

/** True for the 404 `not_found` body the service gives a path it does not route. */
export function isUnknownRoute(answer: AdminAnswer): boolean {
  if (answer.status !== 404 || typeof answer.body !== "object" || answer.body === null) return false;
  const error = (answer.body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === "not_found" && message === NO_SUCH_ROUTE;
}

/** What the CLI prints when the admin API of the service at `base` is off, and how to turn it on. */
export function adminOffText(base: string): string {
  return [
    `error: the admin API is off on ${base} (every /admin/v1 path answers 404 there)`,
    "  It is on only when the service is started with FGW_ADMIN_TOKEN set (at least 16 characters):",
    "    FGW_ADMIN_TOKEN=<a long secret> npx -y deno@2.9.6 task start",
    "  Then run this CLI with the same token: export FGW_ADMIN_TOKEN=<the same secret>",
  ].join("\n");
}
