import type { Context } from "hono";
import { generateCookie } from "hono/cookie";
import { base64urlnopad } from "@scure/base";
import type { DashboardEnv, DashboardVisit } from "./dashboard_visit.ts";
import { COOKIE, readCookie } from "./session_cookies.ts";

/**
 * A secret on its way from the POST that made it to the one GET that shows it
 * (POST-redirect-GET): a new API key's secret, an invitation's link. It travels in a short-lived
 * `__Host-` cookie sealed (AES-GCM) under a key derived from the session cookie's secret and the
 * flash's name, so only the browser's session that made it can open it, nothing holds the secret
 * in clear, and the page that shows it drops the cookie: a reload shows nothing.
 */
export interface FlashOnce<T> {
  /** Sets the sealed message on the answer; nothing without a session cookie. */
  seal(c: Context, message: T): Promise<void>;
  /** The message the request carries, opened (null when none, or not this session's), and the cookie dropped. */
  take(c: Context): Promise<T | null>;
}

/** How long a sealed message waits for its page. */
const FLASH_MAX_AGE_SECONDS = 120;

/** A one-time message carried in the cookie `__Host-<cookieName>`. */
export function flashOnce<T>(cookieName: string): FlashOnce<T> {
  const keyOf = async (sessionToken: string): Promise<CryptoKey> => {
    const digest = await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(`fgw flash ${cookieName}\n${sessionToken}`),
    );
    return await crypto.subtle.importKey("raw", digest, "AES-GCM", false, ["encrypt", "decrypt"]);
  };
  return {
    async seal(c, message) {
      const session = readCookie(c, COOKIE.session);
      if (session === undefined) return;
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const sealed = new Uint8Array(
        await crypto.subtle.encrypt(
          { name: "AES-GCM", iv },
          await keyOf(session),
          new TextEncoder().encode(JSON.stringify(message)),
        ),
      );
      const value = `${base64urlnopad.encode(iv)}.${base64urlnopad.encode(sealed)}`;
      visitOf(c).addCookie(flashCookie(cookieName, value, FLASH_MAX_AGE_SECONDS));
    },
    async take(c) {
      const value = readCookie(c, cookieName);
      if (value === undefined) return null;
      visitOf(c).addCookie(flashCookie(cookieName, "", 0));
      const session = readCookie(c, COOKIE.session);
      const [iv = "", sealed = ""] = value.split(".");
      if (session === undefined) return null;
      try {
        const opened = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: new Uint8Array(base64urlnopad.decode(iv)) },
          await keyOf(session),
          new Uint8Array(base64urlnopad.decode(sealed)),
        );
        return JSON.parse(new TextDecoder().decode(opened)) as T;
      } catch {
        return null;
      }
    },
  };
}

function flashCookie(name: string, value: string, maxAge: number): string {
  return generateCookie(name, value, { prefix: "host", httpOnly: true, sameSite: "Strict", maxAge });
}

function visitOf(c: Context): DashboardVisit {
  return (c as unknown as Context<DashboardEnv>).get("visit");
}
