/** The answers a store gives by refusing a request; routes render each as the same error code. */
export type RefusalCode = "not_found" | "lease_not_held" | "conflict" | "payload_too_large";

/**
 * A store's final refusal of a request (an unknown id, a lease not held, a queue too contended to
 * claim from): the caller gets the error code as it is. Storage throws this rather than the
 * service's own error, so no port depends on the layers above it.
 */
export class StoreRefusal extends Error {
  readonly code: RefusalCode;

  constructor(code: RefusalCode, message: string) {
    super(message);
    this.name = "StoreRefusal";
    this.code = code;
  }
}
