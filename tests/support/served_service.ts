/**
 * A test service served over TCP on 127.0.0.1 (a free port), so a validator or a relay reaches it
 * as it would a deployed gateway: by URL, with the platform's `fetch`.
 */
import type { TestService } from "./test_service.ts";

export interface ServedService {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Serves `service`'s app until disposed (the service itself stays open). */
export function serveService(service: TestService): ServedService {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => service.app.fetch(request),
  );
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
