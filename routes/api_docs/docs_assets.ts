/**
 * The files of the `/docs` page, served by the service itself (the page contacts no other host):
 * Swagger UI's stylesheet and bundle from the pinned npm package `swagger-ui-dist`, and the page's
 * own start script. They are imported as module text, so they are read once, kept
 * in memory and need no file permission.
 */
import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import bundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import start from "./docs_init.js" with { type: "text" };
import { entityTag } from "../http/etag.ts";

/** The Swagger UI release served (the version of `swagger-ui-dist` in deno.json). */
export const SWAGGER_UI_VERSION = "5.35.0";

/** A file of the page: its bytes, type and entity tag. */
export interface DocsAsset {
  bytes: Uint8Array<ArrayBuffer>;
  contentType: string;
  etag: string;
}

/** The files by name, and the version segment of their paths (changes whenever a file does). */
export interface DocsAssets {
  version: string;
  files: ReadonlyMap<string, DocsAsset>;
}

const JAVASCRIPT = "text/javascript; charset=utf-8";

const SOURCES: readonly { name: string; body: string; contentType: string }[] = [
  { name: "swagger-ui.css", body: css, contentType: "text/css; charset=utf-8" },
  { name: "swagger-ui-bundle.js", body: bundle, contentType: JAVASCRIPT },
  { name: "docs-init.js", body: start, contentType: JAVASCRIPT },
];

/** The names of the files served, for the route's path parameter. */
export const DOCS_ASSET_NAMES: readonly string[] = SOURCES.map((source) => source.name);

let assets: Promise<DocsAssets> | undefined;

/** The files with their tags, made once on first use (hashing them takes a few milliseconds). */
export function docsAssets(): Promise<DocsAssets> {
  assets ??= hashAssets();
  return assets;
}

async function hashAssets(): Promise<DocsAssets> {
  const files = new Map<string, DocsAsset>();
  for (const { name, body, contentType } of SOURCES) {
    const bytes = new TextEncoder().encode(body);
    files.set(name, { bytes, contentType, etag: await entityTag(bytes) });
  }
  const tags = new TextEncoder().encode([...files.values()].map((file) => file.etag).join(""));
  const version = `${SWAGGER_UI_VERSION}-${(await entityTag(tags)).slice(1, 9)}`;
  return { version, files };
}

/** The path of file `name` at `version`. */
export function docsAssetPath(version: string, name: string): string {
  return `/docs/assets/${version}/${name}`;
}
