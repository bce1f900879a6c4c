import { HOTKEY_SCRIPT_PATH } from "./hotkey_extension_script.ts";
import type { FieldProblem } from "./miner_forms.ts";
import { FieldError, problemOf } from "../pages/form_problems.tsx";

/** Where a hotkey ceremony stands on its page: the hotkey typed, and once issued, the message to sign. */
export interface HotkeyStepState {
  hotkey: string;
  /** The challenge issued for `hotkey`, and the exact message it must sign. */
  issued: { challenge: string; message: string } | null;
  problems: FieldProblem[];
}

export const NO_STEP: HotkeyStepState = { hotkey: "", issued: null, problems: [] };

/** The shell command that signs `message` with `deno task sign` (bash's `$'…'` keeps its line breaks). */
export function signCommand(message: string): string {
  return `deno task -q sign --message $'${
    message.replaceAll("\\", "\\\\").replaceAll("'", "\\'").replaceAll("\n", "\\n")
  }'`;
}

/** The refused fields, named, above a form (`role="alert"`). */
export function Problems(props: { what: string; problems: FieldProblem[] }) {
  if (props.problems.length === 0) return "";
  return (
    <div role="alert">
      <p>{props.what} Fix these fields:</p>
      <ul>
        {props.problems.map((entry) => (
          <li>
            <strong>{entry.field || "form"}</strong>: {entry.problem}
          </li>
        ))}
      </ul>
    </div>
  );
}

export interface HotkeyStepsProps {
  /** Prefix of the elements' ids (`link`, `signin`). */
  id: string;
  state: HotkeyStepState;
  csrfToken: string;
  /** Step 1 posts the hotkey here; step 2 posts the proof to `proofAction`. */
  challengeAction: string;
  proofAction: string;
  challengeLabel: string;
  proofLabel: string;
  what: string;
}

/**
 * The two steps of a hotkey ceremony without JavaScript: type the SS58 address and get a challenge;
 * then the exact message to sign, the `deno task sign` command that signs it, and the field where
 * the signature is pasted (a browser extension's signature of the `<Bytes>`-wrapped message too).
 */
export function HotkeySteps(props: HotkeyStepsProps) {
  const { id, state } = props;
  const hotkeyProblem = problemOf(state.problems, "hotkey");
  const signatureProblem = problemOf(state.problems, "signature") ?? problemOf(state.problems, "challenge");
  return (
    <>
      <Problems what={props.what} problems={state.problems} />
      <form method="post" action={props.challengeAction}>
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <p>
          <label for={`${id}-hotkey`}>Hotkey (SS58 address)</label>
          <input
            id={`${id}-hotkey`}
            name="hotkey"
            type="text"
            class="hotkey-field"
            autocomplete="off"
            value={state.hotkey}
            aria-invalid={hotkeyProblem ? "true" : undefined}
            aria-describedby={hotkeyProblem ? `${id}-hotkey-error` : undefined}
          />
          <FieldError id={`${id}-hotkey-error`} problem={hotkeyProblem} />
        </p>
        <p>
          <button type="submit">{props.challengeLabel}</button>
        </p>
      </form>
      {state.issued
        ? (
          <form method="post" action={props.proofAction} data-hotkey-sign={id}>
            <input type="hidden" name="_csrf" value={props.csrfToken} />
            <input type="hidden" name="hotkey" value={state.hotkey} />
            <input type="hidden" name="challenge" value={state.issued.challenge} />
            <p>
              Sign exactly this message with the hotkey (its lines joined by line breaks, none at the end):
            </p>
            <pre class="sign-text" id={`${id}-message`} data-message>{state.issued.message}</pre>
            <p>
              From a shell, with the hotkey's seed in <code>FGW_SIGNING_SECRET</code>:
            </p>
            <pre class="sign-text" id={`${id}-command`}>{signCommand(state.issued.message)}</pre>
            <p>
              The challenge answers once, from this browser, for 5 minutes. A signature made by the
              polkadot{"{"}.js{"}"} or Talisman extension works as well.
            </p>
            <p>
              <label for={`${id}-signature`}>Signature (hex, 0x optional)</label>
              <textarea
                id={`${id}-signature`}
                name="signature"
                class="signature"
                rows={3}
                aria-invalid={signatureProblem ? "true" : undefined}
                aria-describedby={signatureProblem ? `${id}-signature-error` : undefined}
              >
              </textarea>
              <FieldError id={`${id}-signature-error`} problem={signatureProblem} />
            </p>
            <script src={HOTKEY_SCRIPT_PATH} defer></script>
            <p>
              <button type="button" hidden data-extension-sign>Sign with a browser extension</button>
            </p>
            <p role="status" data-extension-status></p>
            <p>
              <button type="submit">{props.proofLabel}</button>
            </p>
          </form>
        )
        : ""}
    </>
  );
}
