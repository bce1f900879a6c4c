import { z } from "zod";

/** Host names a browser treats as a secure context over plain http. */
const LOCALHOST = /^(?:.+\.)?localhost$/;
/** A URL's host that is an IPv4 address (the URL parser writes every IPv4 form this way) or IPv6. */
const IP_HOST = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;

/** Why `text` cannot be the dashboard's origin, or null when it can. */
export function publicUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be a URL such as https://gateway.example.org or http://localhost:8080";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http(s) URL";
  if (url.username !== "" || url.password !== "") return "must not hold a user name or password";
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return "must be an origin only, without a path, query or fragment (the dashboard is served at /dashboard)";
  }
  if (IP_HOST.test(url.hostname)) {
    return "must name a host, not an IP address: WebAuthn (passkeys) refuses IP addresses; " +
      "use http://localhost:<port> for development";
  }
  if (url.protocol === "http:" && !LOCALHOST.test(url.hostname)) {
    return "must be https (plain http only for localhost): browsers keep passkeys and secure cookies to secure origins";
  }
  return null;
}

/**
 * `FGW_PUBLIC_URL`: the origin the dashboard is served at (passkeys and signed messages are bound
 * to it). Read as its origin: `https://gw.example.org/` is `https://gw.example.org`.
 */
export const publicUrlSetting = z.string().superRefine((text, ctx) => {
  const problem = publicUrlProblem(text);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
}).transform((text) => new URL(text).origin).optional();
