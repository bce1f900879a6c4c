import type { TestBrowser } from "./dashboard.ts";
import type { PolkadotSigner } from "./polkadot/polkadot_signer.ts";
import type { TestService } from "./test_service.ts";

const ORIGIN = "http://localhost:8080";
const HTML = { accept: "text/html" };

const fetcher = (service: TestService) => (path: string, init?: RequestInit) => service.request(path, init);

/** `GET path` as a page, its status and HTML. */
export async function getPage(
  service: TestService,
  browser: TestBrowser,
  path: string,
): Promise<{ status: number; html: string; location: string | null }> {
  const answer = await browser.fetch(fetcher(service), path, { headers: HTML });
  return { status: answer.status, html: await answer.text(), location: answer.headers.get("location") };
}

/** Posts a form to `path` with the CSRF token `pagePath` gives this browser; the answer's status, HTML and location. */
export async function postPageForm(
  service: TestService,
  browser: TestBrowser,
  pagePath: string,
  path: string,
  fields: Record<string, string> = {},
): Promise<{ status: number; html: string; location: string | null }> {
  const { html: page } = await getPage(service, browser, pagePath);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
  const answer = await browser.fetch(fetcher(service), path, {
    method: "POST",
    headers: { ...HTML, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...fields, _csrf: csrf }),
  });
  return { status: answer.status, html: await answer.text(), location: answer.headers.get("location") };
}

function unescapeHtml(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll(
    "&#39;",
    "'",
  )
    .replaceAll("&amp;", "&");
}

/** The message a hotkey step page shows to sign (`<pre id="<id>-message">`), and the challenge it carries. */
export function issuedOf(html: string, id: "link" | "signin"): { message: string; challenge: string } {
  const message = new RegExp(`<pre[^>]* id="${id}-message"[^>]*>([^<]*)</pre>`).exec(html)?.[1];
  const challenge = /name="challenge" value="([^"]+)"/.exec(html)?.[1];
  if (message === undefined || challenge === undefined) throw new Error(`no ${id} message on the page`);
  return { message: unescapeHtml(message), challenge };
}

/** Step 1 of a hotkey ceremony (`link` on the miners page, `signin` on the sign-in page): the issued challenge. */
export async function askChallenge(
  service: TestService,
  browser: TestBrowser,
  id: "link" | "signin",
  hotkey: string,
): Promise<{ message: string; challenge: string }> {
  const [pagePath, path] = id === "link"
    ? ["/dashboard/miners", "/dashboard/miners/link/challenge"]
    : ["/dashboard/sign-in", "/dashboard/sign-in/hotkey/challenge"];
  const answer = await postPageForm(service, browser, pagePath, path, { hotkey });
  if (answer.status !== 200) throw new Error(`challenge refused: ${answer.status}`);
  return issuedOf(answer.html, id);
}

/** Both steps: asks a challenge for `signer`'s hotkey, then posts its proof (a 303 when accepted). */
export async function signChallenge(
  service: TestService,
  browser: TestBrowser,
  id: "link" | "signin",
  signer: PolkadotSigner,
) {
  return await answerChallenge(
    service,
    browser,
    id,
    await askChallenge(service, browser, id, signer.address),
    signer,
  );
}

/** Step 2: posts the proof `signer` signed the way an extension signs (`<Bytes>`-wrapped). */
export async function answerChallenge(
  service: TestService,
  browser: TestBrowser,
  id: "link" | "signin",
  issued: { message: string; challenge: string },
  signer: PolkadotSigner,
  fields: Record<string, string> = {},
) {
  const [pagePath, path] = id === "link"
    ? ["/dashboard/miners", "/dashboard/miners/link"]
    : ["/dashboard/sign-in", "/dashboard/sign-in/hotkey"];
  return await postPageForm(service, browser, pagePath, path, {
    hotkey: signer.address,
    challenge: issued.challenge,
    signature: signer.extensionSign(issued.message),
    ...fields,
  });
}
