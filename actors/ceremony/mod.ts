/**
 * The dashboard's sign-in ceremonies (docs/dashboard.md, "Sign-in ceremonies"): the public origin
 * they are bound to, single-use challenges behind the `ChallengeStore` port, passkeys (WebAuthn
 * registration and discoverable sign-in) and hotkeys (signed sign-in and link messages). Pure
 * logic: the stores of challenges, passkeys and sessions are the callers'.
 *
 * @module
 */
export * from "./public_origin.ts";
export * from "./challenge_store.ts";
export * from "./challenges.ts";
export * from "./ceremony_refusal.ts";
export * from "./passkey_options.ts";
export * from "./passkey_response.ts";
export * from "./passkey_ceremony.ts";
export * from "./hotkey_messages.ts";
export * from "./hotkey_ceremony.ts";
