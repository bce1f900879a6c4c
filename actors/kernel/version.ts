/** This release of the service. */
export const SERVICE_VERSION = "0.4.0";

/** What every upstream request sends as `User-Agent` (some upstreams refuse generic client agents). */
export const SERVICE_USER_AGENT = `forecasting-gateway/${SERVICE_VERSION}`;
