/** The request ids a client may choose (docs/conventions.md#request-ids). */
export const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** The incoming `X-Request-Id` when it matches `REQUEST_ID`, else a fresh UUID (`frontDoor` sets it). */
export function chooseRequestId(incoming: string | null): string {
  return incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}
