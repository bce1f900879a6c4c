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
