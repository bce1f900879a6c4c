import type { Context } from "hono";
import { generateCookie } from "hono/cookie";
import { base64urlnopad } from "@scure/base";
import type { DashboardEnv, DashboardVisit } from "../dashboard_visit.ts";
import { COOKIE, readCookie } from "../session_cookies.ts";

/**
 * A new key's secret on its way from the POST that made it to the one GET that shows it
 * (POST-redirect-GET): a short-lived `__Host-` cookie sealed (AES-GCM) under a key derived from the
 * session cookie's secret, so only the browser's session that made the key can open it, nothing
 * holds the secret in clear, and the page that shows it drops the cookie: a reload shows nothing.
 */
export const FLASH_COOKIE = "fgw_key_once";

/** How long the sealed secret waits for its page. */
const FLASH_MAX_AGE_SECONDS = 120;

/** What the one-time message says. */
export interface KeyFlash {
  keyId: string;
  apiKey: string;
  /** `issued` or `rotated`. */
  event: "issued" | "rotated";
}

async function keyOf(sessionToken: string): Promise<CryptoKey> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`fgw key flash\n${sessionToken}`),
  );
  return await crypto.subtle.importKey("raw", digest, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Sets the sealed message on the answer; nothing without a session cookie. */
export async function sealKeyFlash(c: Context, flash: KeyFlash): Promise<void> {
  const session = readCookie(c, COOKIE.session);
  if (session === undefined) return;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv },
      await keyOf(session),
      new TextEncoder().encode(JSON.stringify(flash)),
    ),
  );
  const value = `${base64urlnopad.encode(iv)}.${base64urlnopad.encode(sealed)}`;
  visitOf(c).addCookie(flashCookie(value, FLASH_MAX_AGE_SECONDS));
}

/** The message the request carries, opened (null when none, or not this session's), and the cookie dropped. */
export async function takeKeyFlash(c: Context): Promise<KeyFlash | null> {
  const value = readCookie(c, FLASH_COOKIE);
  if (value === undefined) return null;
  visitOf(c).addCookie(flashCookie("", 0));
  const session = readCookie(c, COOKIE.session);
  const [iv = "", sealed = ""] = value.split(".");
  if (session === undefined) return null;
  try {
    const opened = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: new Uint8Array(base64urlnopad.decode(iv)) },
      await keyOf(session),
      new Uint8Array(base64urlnopad.decode(sealed)),
    );
    return JSON.parse(new TextDecoder().decode(opened)) as KeyFlash;
  } catch {
    return null;
  }
}

function flashCookie(value: string, maxAge: number): string {
  return generateCookie(FLASH_COOKIE, value, {
    prefix: "host",
    httpOnly: true,
    sameSite: "Strict",
    maxAge,
  });
}

function visitOf(c: Context): DashboardVisit {
  return (c as unknown as Context<DashboardEnv>).get("visit");
}
