/**
 * One load run with autocannon: a fixed number of connections for a fixed duration, each request
 * made by `next()` (so every request can differ). Latencies are collected from autocannon's
 * `response` events so p50/p95/p99 come from every response, not from its fixed percentile set.
 */
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { round } from './common';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  errors: number;
  timeouts: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  /** CPU milliseconds per successful response of each process named in `cpuOf` (where it could be read). */
  cpuMsPerRequest?: Record<string, number>;
}

/** User + system CPU time of a process in milliseconds, from /proc (undefined where it cannot be read). */
export function processCpuMs(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces, hence the last ')'): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[at]!;
}

/** CPU milliseconds of every process whose command name is `comm` (e.g. all `postgres` backends), summed. */
export function commandCpuMs(comm: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === comm) total += processCpuMs(Number(entry)) ?? 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export async function runLoad(options: {
  url: string;
  connections: number;
  durationS: number;
  headers?: Record<string, string>;
  next: () => LoadRequest;
  /** Processes whose CPU time the run reports per request (name → pid; `loadgen` is this process itself). */
  cpuOf?: Record<string, number>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const cpuBefore = Object.fromEntries(Object.entries(options.cpuOf ?? {}).map(([name, pid]) => [name, processCpuMs(pid)]));
  const started = process.hrtime.bigint();
  let instance!: autocannon.Instance;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationS,
        timeout: 30,
        headers: options.headers ?? {},
        requests: [
          {
            setupRequest: (request) => {
              const next = options.next();
              request.method = next.method;
              request.path = next.path;
              if (next.body !== undefined) request.body = next.body;
              return request;
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    latencies.push(responseTime);
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const result = await finished;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const ok = Object.entries(statuses).reduce((n, [code, count]) => (code.startsWith('2') ? n + count : n), 0);
  const cpuMsPerRequest: Record<string, number> = {};
  for (const [name, pid] of Object.entries(options.cpuOf ?? {})) {
    const after = processCpuMs(pid);
    if (after !== undefined && cpuBefore[name] !== undefined)
      cpuMsPerRequest[name] = round((after - cpuBefore[name]!) / Math.max(1, ok), 3);
  }
  return {
    requests: latencies.length,
    rps: round(ok / seconds, 1),
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    mean: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    ...(options.cpuOf ? { cpuMsPerRequest } : {}),
  };
}
