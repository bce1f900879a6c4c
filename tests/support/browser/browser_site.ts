/**
 * The service a browser visits: a whole test service on an empty or the populated data set
 * (tests/support/populated/), served over TCP on 127.0.0.1 (a free port), as a browser reaches a
 * deployed gateway.
 */
import { openEmptyService, openPopulatedService } from "../populated/populated_service.ts";
import { serveService } from "../served_service.ts";
import type { TestService } from "../test_service.ts";

/** The data sets a page is checked on. */
export type DataSet = "empty" | "populated";
export const DATA_SETS: readonly DataSet[] = ["empty", "populated"];

export interface Site {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  data: DataSet;
  service: TestService;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Serves a service holding `data` until disposed (then closes it). */
export async function openSite(data: DataSet): Promise<Site> {
  const service = data === "populated" ? await openPopulatedService() : await openEmptyService();
  const served = serveService(service);
  return {
    base: served.base,
    data,
    service,
    async [Symbol.asyncDispose]() {
      await served[Symbol.asyncDispose]();
      await service.close();
    },
  };
}
