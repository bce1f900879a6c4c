import { gzipSync } from "node:zlib";
import { LRUCache } from "lru-cache";

/** How many bytes of encoded pages an instance keeps (plain and gzip together). */
const CACHE_BYTES = 64 * 2 ** 20;

interface Encoded {
  plain: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer> | null;
}

const encoder = new TextEncoder();

/**
 * A page's bytes, plain or gzip, encoded once per page text: the views keep each rendered page as
 * one string until their data changes, so the same string comes back for every request, and its
 * UTF-8 and gzip bytes are made the first time it is sent that way (a page of the whole board is
 * about 180 KB as text and 20 KB as gzip).
 */
export class PageBytes {
  readonly #cache = new LRUCache<string, Encoded>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (encoded, key) =>
      key.length * 2 + encoded.plain.length + (encoded.gzip?.length ?? 0) + 64,
  });

  /** The page's bytes: gzip when the client accepts it. */
  of(html: string, gzip: boolean): Uint8Array<ArrayBuffer> {
    let encoded = this.#cache.get(html);
    if (!encoded) this.#cache.set(html, encoded = { plain: encoder.encode(html), gzip: null });
    if (!gzip) return encoded.plain;
    if (encoded.gzip === null) {
      encoded.gzip = new Uint8Array(gzipSync(encoded.plain));
      this.#cache.set(html, encoded); // its size grew
    }
    return encoded.gzip;
  }
}

/** True when `Accept-Encoding` names gzip (or `*`) without refusing it (`q=0`). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name !== "gzip" && name !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}
