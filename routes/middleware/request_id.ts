import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/app_env.ts";

/** The request ids a client may choose (docs/conventions.md#request-ids). */
export const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** The incoming `X-Request-Id` when it matches `REQUEST_ID`, else a fresh one. */
export function chooseRequestId(incoming: string | null): string {
  return incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/**
 * Sets the request's id: the incoming `X-Request-Id` when it matches `REQUEST_ID`, else a fresh
 * UUID. The id is echoed in `X-Request-Id` and read by the error handler and the logs.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = chooseRequestId(c.req.raw.headers.get("x-request-id"));
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    await next();
  };
}
