/** Reads the Prometheus text format (what `GET /metrics` answers) into samples tests can query. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample line; throws on a line that is neither a sample, a comment nor blank. */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new SyntaxError(`Not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? "").matchAll(LABEL)) {
      labels[key!] = raw!.replace(/\\(.)/g, (_, escaped: string) => escaped === "n" ? "\n" : escaped);
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The names of every metric family the text declares (`# TYPE` lines). */
export function declaredMetrics(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((match) => match[1]!);
}

/** The value of the one sample named `name` whose labels include `labels`, or undefined. */
export function sampleValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = parseSamples(text).filter((sample) =>
    sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)
  );
  if (found.length > 1) {
    throw new RangeError(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  }
  return found[0]?.value;
}

/** One key per series of the metric families whose names start with `prefix` (bucket bounds ignored). */
export function seriesKeys(text: string, prefix: string): Set<string> {
  const keys = new Set<string>();
  for (const sample of parseSamples(text)) {
    if (!sample.name.startsWith(prefix)) continue;
    const { le: _le, ...labels } = sample.labels;
    const family = sample.name.replace(/_(bucket|sum|count)$/, "");
    keys.add(`${family}${JSON.stringify(Object.entries(labels).toSorted())}`);
  }
  return keys;
}
