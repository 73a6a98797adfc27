/**
 * The public search's own connection to Meilisearch: the two calls the storefront makes on every
 * keystroke and every results page (`POST /multi-search` and `POST /indexes/{uid}/search`), over
 * node:http with kept-alive sockets.
 *
 * Why not the `meilisearch` client for these: it goes through fetch, whose web streams cost the api
 * process about a third of its CPU per search in the search benchmark's profile (reading a 20–30 KB
 * answer through a ReadableStream, then text, then JSON). Everything else (settings, documents, keys,
 * tasks) keeps using the official client.
 */
import http from 'node:http';
import https from 'node:https';

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

export function createSearchTransport(meiliUrl: string, apiKey: string, timeoutMs = 5_000): SearchTransport {
  const base = new URL(meiliUrl);
  const secure = base.protocol === 'https:';
  const transport = secure ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 128, maxFreeSockets: 64 });
  const prefix = base.pathname.replace(/\/+$/, '');
  const authorization = `Bearer ${apiKey}`;
  // Read once: the URL's getters are not free, and every search makes a request.
  const protocol = base.protocol;
  const hostname = base.hostname;
  const port = base.port || (secure ? 443 : 80);

  const post = <T>(path: string, body: unknown): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify(body));
      const request = transport.request(
        {
          protocol,
          hostname,
          port,
          path: `${prefix}${path}`,
          method: 'POST',
          agent,
          headers: { authorization, 'content-type': 'application/json', 'content-length': payload.length },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > MAX_ANSWER_BYTES)
              request.destroy(new MeiliUnreachableError(`Meilisearch answered more than ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(chunk);
          });
          response.on('error', (error) => reject(new MeiliUnreachableError('Meilisearch answer broken off', { cause: error })));
          response.on('end', () => {
            clearTimeout(timer);
            const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch (error) {
              reject(
                new MeiliUnreachableError(`Meilisearch answered ${response.statusCode} with a body that is not JSON`, { cause: error }),
              );
              return;
            }
            const status = response.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(parsed as T);
            else {
              const problem = (parsed ?? {}) as { code?: string; message?: string };
              reject(new MeiliResponseError(status, problem.code, problem.message ?? `Meilisearch answered ${status}`));
            }
          });
        },
      );
      const timer = setTimeout(
        () => request.destroy(new MeiliUnreachableError(`Meilisearch did not answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(
          error instanceof MeiliUnreachableError
            ? error
            : new MeiliUnreachableError(`Meilisearch request failed: ${error.message}`, { cause: error }),
        );
      });
      request.end(payload);
    });

  return {
    multiSearch: (body) => post('/multi-search', body),
    search: (indexUid, body) => post(`/indexes/${encodeURIComponent(indexUid)}/search`, body),
    close: () => agent.destroy(),
  };
}
