import type { OpenAPIHono } from "@hono/zod-openapi";
import { swaggerUI } from "@hono/swagger-ui";
import { z } from "zod";
import type { AppEnv } from "./http/app_env.ts";
import { defineRoute, openapiSelfParsed } from "./http/openapi.ts";
import { registerSharedComponents } from "./http/openapi_components.ts";

/** Version of the HTTP API the document describes (paths start with `/v1`). */
export const API_VERSION = "1.0.0";

/** The Swagger UI release `/docs` loads from its CDN (pinned: the page must not change under us). */
const SWAGGER_UI_VERSION = "5.35.0";

const JSON_TYPE = "application/json; charset=utf-8";

const documentRoute = defineRoute({
  method: "get",
  path: "/openapi.json",
  tags: ["documentation"],
  summary: "This OpenAPI 3.1 document",
  access: "public",
  responses: {
    200: {
      description: "The OpenAPI 3.1 document of every route, generated from their declarations.",
      content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
    },
  },
});

const referenceRoute = defineRoute({
  method: "get",
  path: "/docs",
  tags: ["documentation"],
  summary: "An API reference page (Swagger UI) over /openapi.json",
  description: `The page loads Swagger UI ${SWAGGER_UI_VERSION} from a CDN when viewed; ` +
    "offline, read /openapi.json itself.",
  access: "public",
  responses: { 200: { description: "HTML.", content: { "text/html": { schema: z.string() } } } },
});

/**
 * `GET /openapi.json` (the OpenAPI 3.1 document of every route declared on `app`, generated once on
 * first request) and `GET /docs` (Swagger UI over it). Mount after every other route.
 */
export function serveApiDocs(app: OpenAPIHono<AppEnv>): void {
  registerSharedComponents(app.openAPIRegistry);
  let document: string | undefined;
  openapiSelfParsed(app, documentRoute, (c) => {
    document ??= JSON.stringify(app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "Forecasting Gateway",
        version: API_VERSION,
        description: "Errors, money, timestamps and cursors follow docs/conventions.md.",
      },
    }));
    return c.body(document, 200, { "Content-Type": JSON_TYPE });
  });
  openapiSelfParsed(
    app,
    referenceRoute,
    swaggerUI({ url: "/openapi.json", version: SWAGGER_UI_VERSION, title: "Forecasting Gateway API" }),
  );
}
