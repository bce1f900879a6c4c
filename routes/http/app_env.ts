/** The Hono environment every sub-app shares: the request id set by the first middleware. */
export type AppEnv = { Variables: { requestId: string } };
