import { base64urlnopad } from "@scure/base";
import type { SessionDesk, SignedIn } from "../../actors/identity/mod.ts";
import type { SignInVia } from "../../storage/session_store.ts";
import type { AnswerEnv } from "../http/answer.ts";
import { csrfTokenOf } from "./csrf.ts";
import { clearCookieValue, COOKIE, setCookieValue } from "./session_cookies.ts";

/** What a dashboard request knows of its browser: its cookies, as read when it arrived. */
export interface VisitCookies {
  /** The session cookie's value (`<id>.<secret>`), when sent. */
  session?: string;
  /** The pre-session id, when sent. */
  browser?: string;
}

/**
 * One dashboard request's view of its browser: the signed-in member (if any), its CSRF token, its
 * pre-session id, and the cookies to set on the answer. Sign-in and sign-out go through it, so
 * the cookie and the stored session always change together.
 */
export class DashboardVisit {
  readonly #desk: SessionDesk;
  readonly #cookies: VisitCookies;
  #signedIn: SignedIn | null;
  /** The secret of the session this browser holds now (the cookie's, or one started here). */
  #sessionSecret: string | null;
  #browserId: string | null;
  /** The session cookie to send: unchanged (undefined), dropped (null) or set to a new token. */
  #sessionCookie: string | null | undefined;
  #browserCookie: string | undefined;
  /** Other `Set-Cookie` values a page adds to the answer (`addCookie`). */
  readonly #extraCookies: string[] = [];

  constructor(desk: SessionDesk, cookies: VisitCookies, signedIn: SignedIn | null) {
    this.#desk = desk;
    this.#cookies = cookies;
    this.#signedIn = signedIn;
    this.#sessionSecret = signedIn && cookies.session ? secretOf(cookies.session) : null;
    this.#browserId = cookies.browser ?? null;
    // A cookie naming a session that no longer holds is dropped.
    this.#sessionCookie = cookies.session !== undefined && signedIn === null ? null : undefined;
  }

  /** The signed-in member and session, or null. The role is the member's as stored now. */
  get signedIn(): SignedIn | null {
    return this.#signedIn;
  }

  /**
   * The CSRF token every state-changing request of this browser must carry (a form's `_csrf`
   * field or the `X-CSRF-Token` header): bound to the session when signed in, else to the
   * pre-session id (made here when the browser has none yet).
   */
  csrfToken(): string {
    return csrfTokenOf(this.#sessionSecret ?? this.browserId());
  }

  /** The token a state-changing request must carry, without making a pre-session id (null: none can match). */
  expectedCsrfToken(): string | null {
    const binding = this.#sessionSecret ?? this.#browserId;
    return binding === null ? null : csrfTokenOf(binding);
  }

  /**
   * This browser's pre-session id, which sign-in challenges are bound to; made (with its cookie)
   * the first time a browser needs one.
   */
  browserId(): string {
    if (this.#browserId === null) {
      this.#browserId = base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(32)));
      this.#browserCookie = this.#browserId;
    }
    return this.#browserId;
  }

  /**
   * Signs this browser in as `memberId`: a new session with a new id (the session the browser
   * held before, if any, is ended), and its cookie set on the answer.
   */
  async startSession(memberId: string, via: SignInVia): Promise<SignedIn> {
    const previous = this.#signedIn?.session.id;
    const started = await this.#desk.start(memberId, via);
    if (previous !== undefined) await this.#desk.end(previous);
    this.#signedIn = { session: started.session, member: started.member };
    this.#sessionSecret = secretOf(started.token);
    this.#sessionCookie = started.token;
    return this.#signedIn;
  }

  /** Ends this browser's session (on every instance: it is deleted from storage) and drops its cookie. */
  async signOut(): Promise<void> {
    const current = this.#signedIn?.session.id;
    if (current !== undefined) await this.#desk.end(current);
    this.#signedIn = null;
    this.#sessionSecret = null;
    if (this.#cookies.session !== undefined || this.#sessionCookie !== undefined) this.#sessionCookie = null;
  }

  /** Adds a `Set-Cookie` value to the answer (whatever builds it: page, redirect or error). */
  addCookie(value: string): void {
    this.#extraCookies.push(value);
  }

  /** The `Set-Cookie` values of the answer. */
  cookiesToSet(): string[] {
    const cookies: string[] = [...this.#extraCookies];
    if (this.#sessionCookie === null) cookies.push(clearCookieValue(COOKIE.session));
    else if (this.#sessionCookie !== undefined) {
      cookies.push(setCookieValue(COOKIE.session, this.#sessionCookie));
    }
    if (this.#browserCookie !== undefined) cookies.push(setCookieValue(COOKIE.browser, this.#browserCookie));
    return cookies;
  }
}

/** The secret half of a `<id>.<secret>` token. */
function secretOf(token: string): string {
  return token.slice(token.indexOf(".") + 1);
}

/** The Hono environment of the dashboard's routes: the app's bindings and the request's visit. */
export type DashboardEnv = { Bindings: AnswerEnv; Variables: { visit: DashboardVisit } };
