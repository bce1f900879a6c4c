/**
 * What a browser receives for a page: the bytes as the service sends them (`node:http` does not
 * decompress, unlike `fetch`), and the page's weight — the gzip total of its document and its
 * same-origin assets.
 */
import { Buffer } from "node:buffer";
import { request } from "node:http";
import { gunzipSync, gzipSync } from "node:zlib";
import { sameOriginAssets, type WeightPart, weightTotal } from "./page_figures.ts";

/** A browser's request headers for a document and for JSON, both asking for gzip. */
export const BROWSER_HTML = {
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "Accept-Encoding": "gzip",
};
export const BROWSER_JSON = { Accept: "application/json", "Accept-Encoding": "gzip" };

export interface RawAnswer {
  status: number;
  contentEncoding: string | null;
  contentType: string;
  /** The body as sent (compressed when `contentEncoding` says so). */
  sent: Uint8Array;
}

/** GETs `url` and keeps the body exactly as sent. */
export function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const call = request(url, { method: "GET", headers }, (response) => {
      const chunks: Uint8Array[] = [];
      response.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const encoding = response.headers["content-encoding"];
        resolve({
          status: response.statusCode ?? 0,
          contentEncoding: typeof encoding === "string" ? encoding : null,
          contentType: String(response.headers["content-type"] ?? ""),
          sent: new Uint8Array(Buffer.concat(chunks)),
        });
      });
    });
    call.on("error", reject);
    call.end();
  });
}

/** The size of a body gzipped: as sent when the service gzipped it, else gzipped here (level 6). */
export function gzipBytes(answer: RawAnswer): number {
  return answer.contentEncoding === "gzip" ? answer.sent.length : gzipSync(answer.sent, { level: 6 }).length;
}

export interface PageWeight {
  status: number;
  /** Bytes as sent: the document and its assets. */
  sentBytes: number;
  parts: WeightPart[];
  total: number;
}

/** The weight of the page at `base + path`: its document and each same-origin asset it loads. */
export async function pageWeight(base: string, path: string): Promise<PageWeight> {
  const document = await rawGet(`${base}${path}`, BROWSER_HTML);
  if (document.status !== 200) return { status: document.status, sentBytes: 0, parts: [], total: 0 };
  const html = new TextDecoder().decode(
    document.contentEncoding === "gzip" ? gunzipSync(document.sent) : document.sent,
  );
  const parts: WeightPart[] = [{ path, gzipBytes: gzipBytes(document) }];
  let sentBytes = document.sent.length;
  for (const asset of sameOriginAssets(html)) {
    const answer = await rawGet(`${base}${asset}`, { ...BROWSER_HTML, Accept: "*/*" });
    if (answer.status !== 200) throw new Error(`${path} loads ${asset}, which answers ${answer.status}`);
    parts.push({ path: asset, gzipBytes: gzipBytes(answer) });
    sentBytes += answer.sent.length;
  }
  return { status: 200, sentBytes, parts, total: weightTotal(parts) };
}
