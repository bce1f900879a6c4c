/// <reference lib="dom" />
/**
 * The browser side of signing a hotkey message with a browser extension (polkadot{.js}, Talisman),
 * served as `/dashboard/assets/hotkey.js` (hotkey_extension_script.ts): each function here is sent
 * to the browser as its source text, so each uses only the others and the browser's globals. When
 * an extension has injected itself (`window.injectedWeb3`), each hotkey proof form
 * (`form[data-hotkey-sign]`) shows a button that asks the extension to sign the form's message
 * (`signRaw`, type `bytes`: the extension signs the `<Bytes>`-wrapped message) and fills the
 * signature field; the member then submits the form. Without an extension the paste form is all.
 */

/** What an extension's signer answers `signRaw` with. */
interface RawSignature {
  signature: string;
}

/** An injected extension, as `window.injectedWeb3[name]` holds it. */
interface InjectedExtension {
  enable(appName: string): Promise<{
    signer: { signRaw?(payload: { address: string; data: string; type: "bytes" }): Promise<RawSignature> };
  }>;
}

/** The extensions the page holds (`window.injectedWeb3`), by name. */
export function injectedExtensions(): Record<string, InjectedExtension> {
  return (globalThis as unknown as { injectedWeb3?: Record<string, InjectedExtension> }).injectedWeb3 ?? {};
}

/** `0x` and the hex of `text`'s UTF-8 bytes: the `data` of `signRaw`. */
export function hexOfText(text: string): string {
  return `0x${
    Array.from(new TextEncoder().encode(text), (byte) => byte.toString(16).padStart(2, "0")).join("")
  }`;
}

/** The signature of `message` by `address`, from the first extension that holds the key and signs. */
export async function signWithExtension(message: string, address: string): Promise<string> {
  const extensions = injectedExtensions();
  let failure = "No browser extension holds this hotkey";
  for (const name of Object.keys(extensions)) {
    try {
      const { signer } = await extensions[name]!.enable("Forecasting Gateway");
      if (!signer.signRaw) continue;
      const { signature } = await signer.signRaw({ address, data: hexOfText(message), type: "bytes" });
      return signature;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
  }
  throw new Error(failure);
}

/** Shows each proof form's extension button and wires it: sign, then fill the signature field. */
export function startExtensionButtons(): void {
  if (Object.keys(injectedExtensions()).length === 0) return;
  for (const form of document.querySelectorAll<HTMLFormElement>("form[data-hotkey-sign]")) {
    const button = form.querySelector<HTMLButtonElement>("button[data-extension-sign]");
    const status = form.querySelector<HTMLElement>("[data-extension-status]");
    const field = form.querySelector<HTMLTextAreaElement>("textarea[name=signature]");
    const message = form.querySelector<HTMLElement>("[data-message]")?.textContent ?? "";
    const address = form.querySelector<HTMLInputElement>("input[name=hotkey]")?.value ?? "";
    if (!button || !field || button.dataset.wired === "yes") continue;
    button.dataset.wired = "yes";
    button.hidden = false;
    button.addEventListener("click", async () => {
      const say = (text: string) => {
        if (status) status.textContent = text;
      };
      button.disabled = true;
      say("Waiting for the extension…");
      try {
        field.value = await signWithExtension(message, address);
        say("Signed by the extension: submit the form.");
      } catch (error) {
        say(error instanceof Error ? error.message : String(error));
      } finally {
        button.disabled = false;
      }
    });
  }
}
