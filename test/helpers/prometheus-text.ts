/**
 * Reads the Prometheus text exposition (what GET /metrics answers) into samples, and sums the
 * samples of a metric whose labels include the given ones.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, '$1');
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

/** Whether a sample named `name` with `labels` is present. */
export function hasSample(samples: Sample[], name: string, labels: Record<string, string> = {}): boolean {
  return samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
