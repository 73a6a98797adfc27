/**
 * The floor under the app's CPU per search in `bench:search`: the thinnest Node service that answers
 * a search through Meilisearch. It takes the comparison body of a search (a `POST /multi-search`),
 * sends it on to Meilisearch over a pool of kept-alive connections (undici, as the search transport
 * does) and writes back the bytes Meilisearch answered, without reading them. No routing, no input
 * checks, no plan, no cache, one request to Meilisearch per search.
 *
 * Run as its own process with the service's node flags (startProxy), so that the bench reads its CPU
 * time per request beside the app's in the same run: whatever the app spends above it is the app's
 * own work; the floor itself is what the machine charges for an HTTP request in, one out to
 * Meilisearch and the answer's bytes through both sockets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import { Pool } from 'undici';
import { waitUntilReady } from './common';
import { serviceNodeFlags } from './search-app';

/** Starts the floor proxy on 127.0.0.1:`port`, forwarding to `meiliUrl`; resolves once it answers. */
export async function startProxy(port: number, meiliUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...serviceNodeFlags(), __filename], {
    env: { ...process.env, PROXY_PORT: String(port), PROXY_MEILI_URL: meiliUrl },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return waitUntilReady(child, port);
}

const bodyOf = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.on('error', reject);
  });

function serve(port: number, meiliUrl: string): void {
  const pool = new Pool(new URL(meiliUrl).origin, { connections: 128, keepAliveTimeout: 30_000 });
  createServer((request, response) => {
    // waitUntilReady asks for /readyz.
    if (request.method !== 'POST') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    bodyOf(request)
      .then((body) =>
        pool.request({
          path: '/multi-search',
          method: 'POST',
          headers: { authorization: request.headers.authorization ?? '', 'content-type': 'application/json' },
          body,
        }),
      )
      .then(async (answer) => {
        const bytes = Buffer.from(await answer.body.arrayBuffer());
        response.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': bytes.length }).end(bytes);
      })
      .catch((error: unknown) => {
        response.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
      });
  }).listen(port, '127.0.0.1');
}

if (require.main === module) serve(Number(process.env.PROXY_PORT), process.env.PROXY_MEILI_URL ?? '');
