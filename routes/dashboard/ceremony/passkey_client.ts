/// <reference lib="dom" />
/**
 * The browser side of the passkey ceremonies, served as `/dashboard/assets/passkey.js`
 * (passkey_script.ts): each function here is sent to the browser as its source text, so each uses
 * only the others and the browser's globals — no imports, no module-level values. Type-checked and
 * linted with the service; run by Chromium in tests/browser/passkey_ceremony_test.ts.
 *
 * A page asks for it with `<script src="/dashboard/assets/passkey.js" defer>` and a button
 * `<button type="button" data-passkey="register|sign-in" data-options=URL data-verify=URL
 * data-csrf=TOKEN data-status=ID data-done=TEXT hidden>`, and for a registration optionally
 * `data-name-input=ID`: the input whose text names the new member (docs/dashboard.md, "Sign-in ceremonies").
 */

/** A credential descriptor as the server sends it: its id in base64url. */
interface DescriptorJson {
  id: string;
  type: "public-key";
  transports?: string[];
}

/** `navigator.credentials.create`'s options as JSON (the server's registration options). */
export interface CreationOptionsJson
  extends Omit<PublicKeyCredentialCreationOptions, "challenge" | "user" | "excludeCredentials"> {
  challenge: string;
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: DescriptorJson[];
}

/** `navigator.credentials.get`'s options as JSON (the server's sign-in options). */
export interface RequestOptionsJson
  extends Omit<PublicKeyCredentialRequestOptions, "challenge" | "allowCredentials"> {
  challenge: string;
  allowCredentials?: DescriptorJson[];
}

/** The bytes of base64url text (padding optional). */
export function bytesOfBase64url(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replaceAll("-", "+").replaceAll("_", "/");
  const binary = atob(base64.padEnd(base64.length + (4 - base64.length % 4) % 4, "="));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

/** Base64url text without padding of `data`'s bytes. */
export function base64urlOfBytes(data: ArrayBuffer | ArrayBufferView): string {
  const bytes = data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The descriptors with their ids as bytes. */
export function descriptorsOf(list: DescriptorJson[]): PublicKeyCredentialDescriptor[] {
  return list.map((item) => ({
    type: item.type,
    id: bytesOfBase64url(item.id),
    ...(item.transports ? { transports: item.transports as AuthenticatorTransport[] } : {}),
  }));
}

/** Registration options with their challenge, user id and excluded credential ids as bytes. */
export function creationOptionsOf(json: CreationOptionsJson): PublicKeyCredentialCreationOptions {
  return {
    ...json,
    challenge: bytesOfBase64url(json.challenge),
    user: { ...json.user, id: bytesOfBase64url(json.user.id) },
    excludeCredentials: descriptorsOf(json.excludeCredentials ?? []),
  };
}

/** Sign-in options with their challenge (and allowed credential ids, if any) as bytes. */
export function requestOptionsOf(json: RequestOptionsJson): PublicKeyCredentialRequestOptions {
  const { allowCredentials, ...rest } = json;
  return {
    ...rest,
    challenge: bytesOfBase64url(json.challenge),
    ...(allowCredentials ? { allowCredentials: descriptorsOf(allowCredentials) } : {}),
  };
}

/** A new passkey as the server reads it (`RegistrationResponseJSON`). */
export function registrationJsonOf(credential: PublicKeyCredential): object {
  const response = credential.response as AuthenticatorAttestationResponse;
  return {
    id: credential.id,
    rawId: base64urlOfBytes(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: base64urlOfBytes(response.clientDataJSON),
      attestationObject: base64urlOfBytes(response.attestationObject),
      transports: response.getTransports?.() ?? [],
    },
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

/** A passkey's sign-in answer as the server reads it (`AuthenticationResponseJSON`). */
export function authenticationJsonOf(credential: PublicKeyCredential): object {
  const response = credential.response as AuthenticatorAssertionResponse;
  return {
    id: credential.id,
    rawId: base64urlOfBytes(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: base64urlOfBytes(response.clientDataJSON),
      authenticatorData: base64urlOfBytes(response.authenticatorData),
      signature: base64urlOfBytes(response.signature),
      userHandle: response.userHandle ? base64urlOfBytes(response.userHandle) : undefined,
    },
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

/** POSTs `body` as JSON with the CSRF token; the answer's JSON, or an Error with the server's message. */
export async function postJson(url: string, body: unknown, csrf: string): Promise<Record<string, unknown>> {
  const answer = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify(body),
  });
  const json = await answer.json().catch(() => ({}));
  if (answer.ok) return json;
  throw new Error(refusalText(json?.error, answer.status));
}

/** The server's refusal in words: its message and each refused field with its problem. */
export function refusalText(error: unknown, status: number): string {
  const refusal = error as { message?: unknown; details?: { fields?: unknown } } | undefined;
  const message = typeof refusal?.message === "string" ? refusal.message : `The server answered ${status}`;
  const fields = Array.isArray(refusal?.details?.fields) ? refusal.details.fields : [];
  const named = fields
    .filter((f) => typeof f?.field === "string" && typeof f?.problem === "string")
    .map((f) => `${f.field}: ${f.problem}`);
  return named.length === 0 ? message : `${message} (${named.join("; ")})`;
}

/** The name typed in the input `data-name-input` names, if the button has one: `{displayName}` or `{}`. */
export function typedName(button: HTMLElement): Record<string, string> {
  const input = document.getElementById(button.dataset.nameInput ?? "");
  return input instanceof HTMLInputElement ? { displayName: input.value } : {};
}

/** Runs the ceremony `button` names; answers where to go next ("" to stay). */
export async function runPasskeyCeremony(button: HTMLElement): Promise<string> {
  const { passkey, options = "", verify = "", csrf = "" } = button.dataset;
  const named = passkey === "register" ? typedName(button) : {};
  const json = await postJson(options, named, csrf);
  const credential = passkey === "register"
    ? await navigator.credentials.create({
      publicKey: creationOptionsOf(json as unknown as CreationOptionsJson),
    })
    : await navigator.credentials.get({ publicKey: requestOptionsOf(json as unknown as RequestOptionsJson) });
  if (!(credential instanceof PublicKeyCredential)) throw new Error("No passkey was made or chosen");
  const response = passkey === "register" ? registrationJsonOf(credential) : authenticationJsonOf(credential);
  const answer = await postJson(verify, { response, ...named }, csrf);
  return typeof answer.next === "string" ? answer.next : "";
}

/** What to tell the user when a ceremony failed. */
export function failureText(error: unknown): string {
  if (error instanceof DOMException && error.name === "NotAllowedError") {
    return "The passkey prompt was closed or timed out: try again.";
  }
  return error instanceof Error ? error.message : String(error);
}

/** A click on a passkey button: the ceremony, its progress in the button's status element, then `next`. */
export async function onPasskeyClick(button: HTMLButtonElement): Promise<void> {
  const status = document.getElementById(button.dataset.status ?? "");
  const say = (text: string) => {
    if (status) status.textContent = text;
  };
  button.disabled = true;
  say("Waiting for your passkey…");
  try {
    const next = await runPasskeyCeremony(button);
    if (next && new URL(next, location.href).origin === location.origin) location.assign(next);
    else say(button.dataset.done ?? "Done.");
  } catch (error) {
    say(failureText(error));
  } finally {
    button.disabled = false;
  }
}

/** Shows the page's passkey buttons (hidden without JavaScript, where they could do nothing) and wires them. */
export function startPasskeyButtons(): void {
  if (!globalThis.PublicKeyCredential) return;
  for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-passkey]")) {
    button.hidden = false;
    button.addEventListener("click", () => onPasskeyClick(button));
  }
}
