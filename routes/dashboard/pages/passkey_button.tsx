import { PASSKEY_SCRIPT_PATH } from "../ceremony/passkey_script.ts";

export interface PasskeyButtonProps {
  ceremony: "register" | "sign-in";
  /** The endpoints the script posts to (options, then the browser's answer). */
  optionsUrl: string;
  verifyUrl: string;
  csrfToken: string;
  label: string;
  done: string;
  /** The id of the input whose text names a new member (sent with a registration). */
  nameInput?: string | undefined;
}

/**
 * The button the passkey script (a same-origin file) wires, and the status line it writes to. The
 * button stays hidden without JavaScript or WebAuthn; the note below says so.
 */
export function PasskeyButton(props: PasskeyButtonProps) {
  return (
    <>
      <script src={PASSKEY_SCRIPT_PATH} defer></script>
      <p>
        <button
          type="button"
          hidden
          data-passkey={props.ceremony}
          data-options={props.optionsUrl}
          data-verify={props.verifyUrl}
          data-csrf={props.csrfToken}
          data-status="passkey-status"
          data-done={props.done}
          data-name-input={props.nameInput}
        >
          {props.label}
        </button>
      </p>
      <p id="passkey-status" role="status"></p>
      <noscript>
        <p>Passkeys need JavaScript: enable it for this site and reload the page.</p>
      </noscript>
    </>
  );
}
