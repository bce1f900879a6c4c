/**
 * Serves a fetch-style app with `node:http`, whose server bounds what `Deno.serve` cannot
 * (docs/operations.md, "Reverse proxy"): header and request timeouts, open connections.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** A fetch-style handler given each request's id. */
export type FetchApp = (request: Request, env: { requestId: string }) => Response | Promise<Response>;

/**
 * Answers `req` with `app`; resolves once the answer is handed to the connection (or the
 * connection is gone). A request it cannot read or answer ends its connection.
 */
export async function serveNode(app: FetchApp, req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.on("error", () => {}); // the agent went away: nothing to tell it
  try {
    const response = await app(webRequest(req), { requestId: `relay-${crypto.randomUUID()}` });
    const body = new Uint8Array(await response.arrayBuffer());
    const headers = { ...Object.fromEntries(response.headers), "content-length": String(body.byteLength) };
    res.writeHead(response.status, headers);
    await new Promise<void>((resolve) => {
      res.on("close", resolve);
      res.end(body, resolve);
    });
  } catch {
    res.destroy();
  }
}

/** The request as the fetch API sees it (the path and query are the request target's). */
function webRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const target = new URL(req.url ?? "/", "http://relay");
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = { method, headers };
  if (hasBody) {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = "half";
  }
  return new Request(`http://relay${target.pathname}${target.search}`, init);
}
