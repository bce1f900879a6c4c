import { parseMetagraphFile } from "./metagraph_file.ts";
import { type MetagraphSource, MetagraphSourceError } from "./metagraph_source.ts";
import type { MetagraphSnapshot } from "./neuron.ts";

export interface FileMetagraphSourceOptions {
  /** The metagraph file (`FGW_METAGRAPH_FILE`; shape in docs/validators.md, "Metagraph file"). */
  path: string | URL;
  /** The subnet the service serves (`FGW_NETUID`): a file for another subnet is refused. */
  netuid: number;
}

/**
 * Offline adapter of the `MetagraphSource` port: reads the file at every fetch, so editing the file
 * is how an operator or a test changes what the service sees. A missing, unreadable or malformed
 * file, or one for another subnet, is a `MetagraphSourceError` (a failed sync).
 */
export class FileMetagraphSource implements MetagraphSource {
  readonly name = "file";
  readonly #path: string | URL;
  readonly #netuid: number;

  constructor(options: FileMetagraphSourceOptions) {
    this.#path = options.path;
    this.#netuid = options.netuid;
  }

  async fetch(signal: AbortSignal): Promise<MetagraphSnapshot> {
    signal.throwIfAborted();
    const where = String(this.#path);
    let snapshot: MetagraphSnapshot;
    try {
      snapshot = parseMetagraphFile(await Deno.readTextFile(this.#path, { signal }));
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const reason = error instanceof Error ? error.message : String(error);
      throw new MetagraphSourceError(`Cannot read metagraph file ${where}: ${reason}`, { cause: error });
    }
    if (snapshot.netuid !== this.#netuid) {
      throw new MetagraphSourceError(
        `Metagraph file ${where} is for netuid ${snapshot.netuid}, not ${this.#netuid}`,
      );
    }
    return snapshot;
  }
}
