/**
 * The public search's own connection to Meilisearch: the two calls the storefront makes on every
 * keystroke and every results page (`POST /multi-search` and `POST /indexes/{uid}/search`), over a
 * pool of kept-alive connections (undici's Pool, driven through `dispatch`).
 *
 * Why not the `meilisearch` client for these: it goes through fetch, whose web streams cost the api
 * process about a third of its CPU per search in the search benchmark's profile (reading a 20–30 KB
 * answer through a ReadableStream, then text, then JSON). Why not node:http: its request objects
 * and agent bookkeeping cost about a quarter more than undici's dispatch (see
 * docs/benchmarks.md). Everything else (settings, documents, keys, tasks) keeps using the official
 * client.
 */
import { Pool } from 'undici';
import { meiliRequestTimer } from '../lib/metrics';

/** Meilisearch answered with an error status; `code` is its error code (`index_not_found`, …). */
export class MeiliResponseError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'MeiliResponseError';
  }
}

/** Meilisearch could not be reached, or did not answer in time. */
export class MeiliUnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MeiliUnreachableError';
  }
}

export interface SearchTransport {
  multiSearch<T = unknown>(body: { queries: unknown[] }): Promise<{ results: T[] }>;
  search<T = unknown>(indexUid: string, body: Record<string, unknown>): Promise<T>;
  close(): void;
}

declare module '../storage/request-context' {
  interface ContextServices {
    /** The process's search-only connection (the public search's), built once by the composition root. */
    meiliSearch: SearchTransport;
  }
}

/** The most bytes read from one answer (a page of 60 hits with facets is about 30 KB). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** undici's codes for a connection, answer head or answer body that did not come in time. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function createSearchTransport(meiliUrl: string, apiKey: string, timeoutMs = 5_000, node = 'main'): SearchTransport {
  const time = meiliRequestTimer(node);
  const base = new URL(meiliUrl);
  const pool = new Pool(base.origin, {
    connections: 128,
    keepAliveTimeout: 30_000,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs + 1_000,
    bodyTimeout: timeoutMs + 1_000,
  });
  const prefix = base.pathname.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const failure = (error: Error): MeiliUnreachableError => {
    if (error instanceof MeiliUnreachableError) return error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && TIMEOUT_CODES.has(code))
      return new MeiliUnreachableError(`Meilisearch did not answer within ${timeoutMs} ms`, { cause: error });
    return new MeiliUnreachableError(`Meilisearch request failed: ${error.message}`, { cause: error });
  };

  const post = <T>(path: string, body: unknown): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      let status = 0;
      let settled = false;
      let abort: ((error: Error) => void) | undefined;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const fail = (error: Error): void => settle(() => reject(failure(error)));
      // The whole request within timeoutMs (undici's own timers tick about once a second: a backstop only).
      const timer = setTimeout(() => {
        const late = new MeiliUnreachableError(`Meilisearch did not answer within ${timeoutMs} ms`);
        fail(late);
        abort?.(late);
      }, timeoutMs);
      // dispatch with a handler of our own: no stream or promise per answer, the chunks are kept as they come.
      pool.dispatch(
        { path: `${prefix}${path}`, method: 'POST', headers, body: JSON.stringify(body) },
        {
          onConnect: (abortRequest) => {
            abort = abortRequest;
            // Timed out while waiting for a connection: not sent at all.
            if (settled) abortRequest(new MeiliUnreachableError('Meilisearch request given up'));
          },
          onHeaders: (statusCode) => {
            status = statusCode;
            return true;
          },
          onData: (chunk) => {
            bytes += chunk.length;
            if (bytes > MAX_ANSWER_BYTES) {
              const tooLarge = new MeiliUnreachableError(`Meilisearch answered more than ${MAX_ANSWER_BYTES} bytes`);
              fail(tooLarge);
              abort?.(tooLarge);
              return false;
            }
            chunks.push(chunk);
            return true;
          },
          onComplete: () =>
            settle(() => {
              const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
              let parsed: unknown;
              try {
                parsed = text === '' ? undefined : JSON.parse(text);
              } catch (error) {
                reject(new MeiliUnreachableError(`Meilisearch answered ${status} with a body that is not JSON`, { cause: error }));
                return;
              }
              if (status >= 200 && status < 300) resolve(parsed as T);
              else {
                const problem = (parsed ?? {}) as { code?: string; message?: string };
                reject(new MeiliResponseError(status, problem.code, problem.message ?? `Meilisearch answered ${status}`));
              }
            }),
          onError: fail,
        },
      );
    });

  return {
    // Timed and counted for /metrics by node (docs/operations.md).
    multiSearch: (body) => time('multi_search', post('/multi-search', body)),
    search: (indexUid, body) => time('search', post(`/indexes/${encodeURIComponent(indexUid)}/search`, body)),
    // Searches still running finish first; new ones are refused.
    close: () => void pool.close().catch(() => undefined),
  };
}
