/** One sample of a Prometheus text exposition: name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format strictly enough for tests: every non-comment line must be a sample. */
export const parseExposition = (text: string): Sample[] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = SAMPLE.exec(line);
      if (match === null) {
        throw new Error(`not a sample line: ${line}`);
      }
      const labels: Record<string, string> = {};
      for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) {
        labels[name as string] = value as string;
      }
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });

/** The value of the one sample with this name whose labels include `labels`, or undefined. */
export const sampleValue = (samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;

/** GET /metrics and parse it. */
export const scrape = async (baseUrl: string, token?: string): Promise<Sample[]> => {
  const response = await fetch(`${baseUrl}/metrics`, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
  if (response.status !== 200) {
    throw new Error(`GET /metrics answered ${response.status}`);
  }
  return parseExposition(await response.text());
};
