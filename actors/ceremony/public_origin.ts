/**
 * Where the dashboard is served (`FGW_PUBLIC_URL`): the origin passkeys and signed messages are
 * bound to, and the WebAuthn relying party id. Taken from the configuration only, never from a
 * request's `Host`, so a request sent under another name cannot move either.
 */
export interface PublicOrigin {
  /** `scheme://host[:port]`, as browsers write it in `clientDataJSON`. */
  origin: string;
  /** The WebAuthn relying party id: the origin's host name, without port. */
  rpId: string;
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** True for `localhost` and its subdomains, which browsers treat as a secure context over http. */
function isLocalhost(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost");
}

/**
 * The public origin of `url` (`FGW_PUBLIC_URL`). Throws a TypeError when WebAuthn could not work
 * there: not an absolute http(s) URL, an IP address (browsers refuse them as relying party ids),
 * plain http on a host other than `localhost`, or a URL with credentials, a query or a fragment.
 */
export function publicOriginOf(url: string): PublicOrigin {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`Invalid public URL: not an absolute URL: ${url}`);
  }
  const { protocol, hostname } = parsed;
  if (protocol !== "https:" && protocol !== "http:") {
    throw new TypeError(`Invalid public URL: expected http or https, got ${protocol}`);
  }
  if (IPV4.test(hostname) || hostname.startsWith("[")) {
    throw new TypeError(
      "Invalid public URL: an IP address cannot be a WebAuthn relying party (use localhost)",
    );
  }
  if (protocol === "http:" && !isLocalhost(hostname)) {
    throw new TypeError("Invalid public URL: plain http is only for localhost");
  }
  if (parsed.username || parsed.password || parsed.search || parsed.hash) {
    throw new TypeError("Invalid public URL: expected no credentials, query or fragment");
  }
  return { origin: parsed.origin, rpId: hostname };
}
