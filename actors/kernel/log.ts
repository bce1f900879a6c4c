/** A structured log line; secrets must never be put in one. */
export type LogLine = Record<string, unknown> & { level: "debug" | "info" | "warn" | "error"; msg: string };
export type Logger = (line: LogLine) => void;

const RANK = { debug: 0, info: 1, warn: 2, error: 3 } as const;

/** JSON lines on stderr at or above `level`. */
export function jsonLogger(level: LogLine["level"] = "info"): Logger {
  return (line) => {
    if (RANK[line.level] < RANK[level]) return;
    console.error(JSON.stringify({ at: new Date().toISOString(), ...line }));
  };
}

/** Discards everything (tests). */
export const silentLogger: Logger = () => {};

/**
 * `refresh` made quiet for a periodic timer: it never rejects; a failure is counted by `onError`
 * every time but logged (as `msg`, at error level) only when its text differs from the previous
 * failure's, until a refresh succeeds again.
 */
export function loggedOnce(
  refresh: () => Promise<unknown>,
  options: { log: Logger; msg: string; onError?: () => void },
): () => Promise<void> {
  let failing: string | null = null;
  return async () => {
    try {
      await refresh();
      failing = null;
    } catch (error) {
      options.onError?.();
      if (failing === String(error)) return;
      failing = String(error);
      options.log({ level: "error", msg: options.msg, error: failing });
    }
  };
}
