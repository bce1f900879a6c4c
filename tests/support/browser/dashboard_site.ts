/**
 * A whole test service serving the dashboard to a browser at `http://localhost:<port>`, with
 * `FGW_PUBLIC_URL` set to that origin (WebAuthn refuses IP addresses as relying parties) and the
 * admin API on, as an operator runs it.
 */
import { ADMIN_TOKEN } from "../access.ts";
import { openTestService, type TestService } from "../test_service.ts";

export interface DashboardSite {
  /** `http://localhost:<port>`: the dashboard's origin. */
  base: string;
  service: TestService;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A free TCP port on the loopback interface. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Serves a service with the dashboard on until disposed (then closes it). */
export async function openDashboardSite(): Promise<DashboardSite> {
  const port = freePort();
  const base = `http://localhost:${port}`;
  const service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: base } });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    (request) => service.app.fetch(request),
  );
  return {
    base,
    service,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await service.close();
    },
  };
}
