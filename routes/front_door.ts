import type { Hono } from "hono";
import { METHOD_NAME_ALL } from "hono/router";
import type { Metrics } from "../actors/kernel/mod.ts";
import { UNMATCHED_ROUTE } from "../actors/kernel/mod.ts";
import type { AppEnv } from "./http/app_env.ts";
import { chooseRequestId } from "./middleware/request_id.ts";
import { type AnswerEnv, stampAnswer } from "./http/answer.ts";

/** What `Deno.serve` (or a test's `app.request`) passes as the second argument of `fetch`. */
interface ServeInfo {
  remoteAddr?: unknown;
}

/**
 * Wraps `app.fetch` with what every request gets: a request id (`chooseRequestId`), handed to the
 * handlers as `c.env.requestId` and echoed as `X-Request-Id` (one of the answer headers of
 * routes/http/answer.ts, which it adds to an answer not built with them), and the HTTP metrics (count and time by
 * method, route pattern and status). It is a wrapper, not a Hono middleware, because any middleware
 * sends every request through Hono's async compose, which cost the cached catalog page about a
 * third of its rate (docs/benchmarks.md); a route with one handler keeps Hono's direct path, and a
 * handler that answers synchronously is answered synchronously. `app.request` (tests) goes through
 * it as well.
 */
export function installFrontDoor(app: Hono<AppEnv>, metrics: Metrics): void {
  const dispatch = app.fetch;
  const patternOf = patternMemo(app);
  app.fetch = (request, info?: ServeInfo, executionContext?) => {
    const started = performance.now();
    const requestId = chooseRequestId(request.headers.get("x-request-id"));
    const env: AnswerEnv = {
      requestId,
      remoteAddr: info?.remoteAddr,
      answerHeaders: { "x-request-id": requestId },
    };
    const finish = (response: Response): Response => {
      const stamped = stampAnswer(env, response);
      const seconds = (performance.now() - started) / 1000;
      metrics.observeRequest(request.method, patternOf(request), stamped.status, seconds);
      return stamped;
    };
    const result = dispatch(request, env, executionContext);
    return result instanceof Promise ? result.then(finish) : finish(result);
  };
}

/**
 * The pattern of the last route (not middleware) the router matches for the request; `unmatched`
 * when only middleware matches, so random URLs all share one label value and cannot create series.
 * HEAD is answered by the GET route, as Hono does.
 */
export function routePattern(app: Hono<AppEnv>, request: Request): string {
  const method = request.method === "HEAD" ? "GET" : request.method;
  const [matches] = app.router.match(method, app.getPath(request));
  for (let index = matches.length - 1; index >= 0; index--) {
    const route = matches[index]![0][1];
    if (route.method !== METHOD_NAME_ALL) return route.path;
  }
  return UNMATCHED_ROUTE;
}

/** Paths remembered by `patternMemo` before it starts over: random URLs cannot grow it. */
const MEMO_PATHS = 512;

/** `routePattern`, remembered per method and path (the router's match is a few percent of a cached page). */
function patternMemo(app: Hono<AppEnv>): (request: Request) => string {
  const memo = new Map<string, string>();
  return (request) => {
    const key = `${request.method} ${app.getPath(request)}`;
    let pattern = memo.get(key);
    if (pattern === undefined) {
      pattern = routePattern(app, request);
      if (memo.size >= MEMO_PATHS) memo.clear();
      memo.set(key, pattern);
    }
    return pattern;
  };
}
