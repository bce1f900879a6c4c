import { loadConfig } from "./config.ts";
import { createService } from "./service.ts";
import { StartupRefusal } from "./gateway_wiring.ts";
import { jsonLogger } from "../../actors/kernel/mod.ts";

/**
 * True when the service would listen beyond loopback with no reverse proxy declared in front of
 * it (`FGW_TRUSTED_PROXIES` empty). Deno.serve times out no idle or half-sent connection, so such a
 * deployment can be held open by slow clients (docs/operations.md, "Reverse proxy").
 */
export function exposedWithoutProxy(host: string, trustedProxies: readonly string[]): boolean {
  const loopback = host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return !loopback && trustedProxies.length === 0;
}

/** Starts the service on the configured storage and serves until SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(2);
  }
  const log = jsonLogger(config.FGW_LOG_LEVEL);
  if (exposedWithoutProxy(config.FGW_HOST, config.FGW_TRUSTED_PROXIES)) {
    log({
      level: "warn",
      msg:
        "listening beyond loopback with no reverse proxy: idle and slow connections are never timed out; " +
        "put the proxy of docs/operations.md in front and set FGW_TRUSTED_PROXIES",
      host: config.FGW_HOST,
    });
  }
  let service;
  try {
    service = await createService(config, { log });
  } catch (error) {
    if (!(error instanceof StartupRefusal)) throw error;
    console.error(error.message);
    Deno.exit(2);
  }
  let server;
  try {
    server = Deno.serve({
      hostname: config.FGW_HOST,
      port: config.FGW_PORT,
      onListen: ({ hostname, port }) =>
        log({
          level: "info",
          msg: "listening",
          url: `http://${hostname}:${port}`,
          storage: service.storage.kind,
          dashboard: config.FGW_PUBLIC_URL === undefined
            ? "off (set FGW_PUBLIC_URL to turn it on)"
            : new URL("/dashboard", config.FGW_PUBLIC_URL).href,
        }),
    }, service.app.fetch);
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    await service.close();
    console.error(
      `${config.FGW_HOST}:${config.FGW_PORT} is already in use: stop what listens there, or start ` +
        "on another port with FGW_PORT (docs/configuration.md)",
    );
    Deno.exit(2);
  }
  service.start();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log({ level: "info", msg: "shutting down: no new connections, draining requests", signal });
    const grace = setTimeout(() => Deno.exit(1), config.FGW_SHUTDOWN_GRACE_MS);
    await server.shutdown();
    await service.close();
    clearTimeout(grace);
    log({ level: "info", msg: "stopped" });
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) Deno.addSignalListener(signal, () => stop(signal));
  await server.finished;
}

if (import.meta.main) await main();
