/**
 * Steps of the dashboard journey on the miners page and the hotkey sign-in: each takes the page of
 * a browser context already where the step starts (signed in as an owner, or signed out), does one
 * thing a person would, and checks what the page must then show, axe-clean.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { axeViolations } from "../axe.ts";
import type { DashboardSite } from "../dashboard_site.ts";
import type { PolkadotSigner } from "../../polkadot/polkadot_signer.ts";

const MINERS = "/dashboard/miners";

async function assertAxeClean(page: Page, where: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `axe on ${where}`);
}

/** The exact message the page shows to sign (`<pre id="<id>-message">`). */
async function messageToSign(page: Page, id: "link" | "signin"): Promise<string> {
  return await page.locator(`#${id}-message`).evaluate((element) => element.textContent ?? "");
}

/**
 * An owner links `signer`'s hotkey: types it, gets the link challenge, signs the message shown the
 * way polkadot{.js} and Talisman sign (`<Bytes>`-wrapped), pastes the signature; the hotkey is
 * then listed as linked with proof.
 */
export async function linkHotkey(page: Page, site: DashboardSite, signer: PolkadotSigner): Promise<void> {
  await page.goto(`${site.base}${MINERS}`);
  await assertAxeClean(page, "the miners page");
  await page.fill("#link-hotkey", signer.address);
  await page.click("text=Get a link challenge");
  await page.waitForURL(`${site.base}${MINERS}/link/challenge`);
  const message = await messageToSign(page, "link");
  assert.match(
    message,
    /^forecasting-gateway\/link\/v1\nhttp:\/\/localhost:\d+\norg_[^\n]+\n[\w-]{43}\n\w+$/,
  );
  assert.ok(message.endsWith(`\n${signer.address}`));
  assert.match(await page.locator("#link-command").innerText(), /^deno task -q sign --message \$'/);
  await assertAxeClean(page, "the link challenge");
  await page.fill("#link-signature", signer.extensionSign(message));
  await page.click("text=Link the hotkey");
  await page.waitForURL(`${site.base}${MINERS}`);
  const row = page.locator(`tr[data-hotkey="${signer.address}"]`);
  assert.match(await row.innerText(), /linked with proof/);
}

/** An owner binds a linked hotkey to `memberId`; the row then names that member. */
export async function bindHotkey(
  page: Page,
  site: DashboardSite,
  hotkey: string,
  memberId: string,
): Promise<void> {
  await page.goto(`${site.base}${MINERS}`);
  await page.selectOption(`#bind-${hotkey}`, memberId);
  await page.click(`button[aria-label="Bind hotkey ${hotkey}"]`);
  await page.waitForURL(`${site.base}${MINERS}`);
  assert.equal(await page.locator(`#bind-${hotkey}`).inputValue(), memberId);
  await assertAxeClean(page, "the miners page with a bound hotkey");
}

/**
 * A signed-out browser signs in with `signer`'s hotkey: types it on the sign-in page, signs the
 * sign-in message shown, pastes the signature; the home page then shows `role`.
 */
export async function signInWithHotkey(
  page: Page,
  site: DashboardSite,
  signer: PolkadotSigner,
  role: "owner" | "viewer",
): Promise<void> {
  await page.goto(`${site.base}/dashboard/sign-in`);
  await page.fill("#signin-hotkey", signer.address);
  await page.click("text=Get a sign-in challenge");
  await page.waitForURL(`${site.base}/dashboard/sign-in/hotkey/challenge`);
  const message = await messageToSign(page, "signin");
  assert.match(message, /^forecasting-gateway\/signin\/v1\nhttp:\/\/localhost:\d+\n[\w-]{43}\n\w+$/);
  await assertAxeClean(page, "the hotkey sign-in challenge");
  await page.fill("#signin-signature", signer.extensionSign(message));
  await page.click("text=Sign in with the hotkey");
  await page.waitForURL(`${site.base}/dashboard`);
  assert.match(await page.locator("main").innerText(), new RegExp(`an? ${role} of this organisation`));
}

/** An owner unlinks a hotkey; it is listed no more. */
export async function unlinkHotkey(page: Page, site: DashboardSite, hotkey: string): Promise<void> {
  await page.goto(`${site.base}${MINERS}`);
  await page.click(`button[aria-label="Unlink hotkey ${hotkey}"]`);
  await page.waitForURL(`${site.base}${MINERS}`);
  assert.equal(await page.locator(`tr[data-hotkey="${hotkey}"]`).count(), 0);
}

/** The next page load of a browser whose session ended leads to the sign-in page. */
export async function sessionEnded(page: Page, site: DashboardSite): Promise<void> {
  await page.goto(`${site.base}/dashboard`);
  await page.waitForURL(`${site.base}/dashboard/sign-in`);
}

/**
 * Gives the page's context a browser extension holding `signer`'s key, as polkadot{.js} injects
 * itself (`window.injectedWeb3`): its `signRaw` of bytes signs them `<Bytes>`-wrapped, with
 * polkadot-js's keyring on the test's side.
 */
export async function installTestExtension(page: Page, signer: PolkadotSigner): Promise<void> {
  await page.exposeFunction("fgwTestExtensionSign", (address: string, data: string) => {
    if (address !== signer.address) throw new Error("Unknown account");
    const bytes = Uint8Array.from(data.slice(2).match(/../g) ?? [], (pair) => parseInt(pair, 16));
    return signer.extensionSign(new TextDecoder().decode(bytes));
  });
  await page.addInitScript(() => {
    const page = globalThis as unknown as Record<string, unknown>;
    const sign = page["fgwTestExtensionSign"] as (address: string, data: string) => Promise<string>;
    page["injectedWeb3"] = {
      "test-extension": {
        version: "0.0.0",
        enable: () =>
          Promise.resolve({
            signer: {
              signRaw: async (payload: { address: string; data: string }) => ({
                id: 1,
                signature: await sign(payload.address, payload.data),
              }),
            },
          }),
      },
    };
  });
}

/** An owner links `signer`'s hotkey with the browser extension the page holds (no pasting). */
export async function linkHotkeyWithExtension(page: Page, site: DashboardSite, signer: PolkadotSigner) {
  await page.goto(`${site.base}${MINERS}`);
  await page.fill("#link-hotkey", signer.address);
  await page.click("text=Get a link challenge");
  await page.waitForURL(`${site.base}${MINERS}/link/challenge`);
  await page.click("text=Sign with a browser extension");
  await page.locator("text=Signed by the extension: submit the form.").waitFor();
  assert.match(await page.locator("#link-signature").inputValue(), /^0x[0-9a-f]{128}$/);
  await page.click("text=Link the hotkey");
  await page.waitForURL(`${site.base}${MINERS}`);
  assert.match(await page.locator(`tr[data-hotkey="${signer.address}"]`).innerText(), /linked with proof/);
}
