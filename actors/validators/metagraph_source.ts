import type { MetagraphSnapshot } from "./neuron.ts";

/**
 * Port for where the metagraph comes from: Subtensor JSON-RPC over HTTP, or a JSON file
 * (docs/validators.md, "Where the metagraph comes from"). A fetch returns the whole metagraph of the
 * configured subnet or throws — never a partial one.
 */
export interface MetagraphSource {
  readonly name: string;
  /** The current metagraph; throws `MetagraphSourceError` when it cannot be read whole. */
  fetch(signal: AbortSignal): Promise<MetagraphSnapshot>;
}

/** The metagraph could not be read (network, upstream error, a payload or file that does not decode). */
export class MetagraphSourceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "MetagraphSourceError";
  }
}
