const REDACTED = "[redacted]";

/**
 * A secret (a provider's API key) that never shows itself: it lives in a private field, so it is
 * not enumerable, and JSON, `String()` and `Deno.inspect` / `console.log` print `[redacted]`.
 * Only `reveal()` gives the value, at the one place that sends it upstream.
 */
export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.for("Deno.customInspect")](): string {
    return `SecretValue(${REDACTED})`;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `SecretValue(${REDACTED})`;
  }
}
