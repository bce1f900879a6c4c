import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import { notModified } from "../http/etag.ts";
import { defineRoute, openapiSelfParsed, pathId } from "../http/openapi.ts";
import { registerSharedComponents } from "../http/openapi_components.ts";
import { DOCS_ASSET_NAMES, docsAssetPath, docsAssets, SWAGGER_UI_VERSION } from "./docs_assets.ts";

/** Version of the HTTP API the document describes (paths start with `/v1`). */
export const API_VERSION = "1.0.0";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * The policy of `/docs`: only the service's own files, except that Swagger UI sets inline styles
 * and draws `data:` images; no framing.
 */
export const DOCS_CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "frame-ancestors 'none'";

/** The headers of the page and of its files. */
const SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
} as const;

/** A versioned file never changes: its path names the version. */
const IMMUTABLE = "public, max-age=31536000, immutable";

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

const textHeader = (description: string) => ({ description, schema: { type: "string" as const } });

const referenceRoute = defineRoute({
  method: "get",
  path: "/docs",
  tags: ["documentation"],
  summary: "An API reference page (Swagger UI) over /openapi.json",
  description: `Swagger UI ${SWAGGER_UI_VERSION}, served by the service with its files ` +
    "(`/docs/assets/…`): the page contacts no other host. It needs JavaScript; without it, read " +
    "/openapi.json itself.",
  access: "public",
  responses: {
    200: {
      description: "HTML.",
      content: { "text/html": { schema: z.string() } },
      headers: {
        "Content-Security-Policy": textHeader(DOCS_CSP),
        "X-Content-Type-Options": textHeader("`nosniff`"),
        "Referrer-Policy": textHeader("`same-origin`"),
      },
    },
  },
});

const assetRoute = defineRoute({
  method: "get",
  path: "/docs/assets/{version}/{file}",
  tags: ["documentation"],
  summary: "A file of the /docs page",
  description: "Swagger UI's stylesheet and script, and the page's start script. The version in the " +
    "path changes whenever a file does, so a file is cached for a year; `If-None-Match` answers 304.",
  access: "public",
  request: {
    params: z.object({
      version: pathId((value) => /^[\w.-]{1,64}$/.test(value), "No such version of the page's files", {
        description: "The version the /docs page names.",
      }),
      file: pathId((value) => DOCS_ASSET_NAMES.includes(value), "No such file", {
        description: DOCS_ASSET_NAMES.map((name) => `\`${name}\``).join(", "),
      }),
    }),
  },
  responses: {
    200: {
      description: "The file.",
      content: {
        "text/css": { schema: z.string() },
        "text/javascript": { schema: z.string() },
      },
      headers: {
        "Cache-Control": textHeader(`\`${IMMUTABLE}\``),
        ETag: textHeader("The file's version."),
        "X-Content-Type-Options": textHeader("`nosniff`"),
      },
    },
    304: { description: "The file named by `If-None-Match` is current." },
  },
});

/**
 * `GET /openapi.json` (the OpenAPI 3.1 document of every route declared on `app`, generated once on
 * first request), `GET /docs` (Swagger UI over it) and the page's files. Mount after every other
 * route.
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
  openapiSelfParsed(app, referenceRoute, async (c) => {
    const page = referencePage((await docsAssets()).version);
    return c.body(page, 200, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": DOCS_CSP,
      "Cache-Control": "no-cache",
      ...SECURITY_HEADERS,
    });
  });
  openapiSelfParsed(app, assetRoute, serveAsset);
}

async function serveAsset(c: Context): Promise<Response> {
  const { version, files } = await docsAssets();
  const file = files.get(c.req.param("file") ?? "");
  if (c.req.param("version") !== version || !file) {
    throw new ServiceError("not_found", "No such version of the page's files");
  }
  const headers = { "Cache-Control": IMMUTABLE, ETag: file.etag, ...SECURITY_HEADERS };
  if (notModified(c, file.etag)) return c.body(null, 304, headers);
  return c.body(file.bytes, 200, { ...headers, "Content-Type": file.contentType });
}

/** The page: Swagger UI's files and the start script, all from this service. */
function referencePage(version: string): string {
  const asset = (name: string) => docsAssetPath(version, name);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Forecasting Gateway API</title>
<link rel="stylesheet" href="${asset("swagger-ui.css")}">
</head>
<body>
<main id="swagger-ui">
<noscript><p>This API reference needs JavaScript. The document it shows is
<a href="/openapi.json">/openapi.json</a>.</p></noscript>
</main>
<script src="${asset("swagger-ui-bundle.js")}"></script>
<script src="${asset("docs-init.js")}"></script>
</body>
</html>
`;
}
