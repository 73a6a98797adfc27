/**
 * The public search's transport to Meilisearch (search/search-transport.ts) against a local HTTP
 * server playing Meilisearch: what it sends, how it reads answers, and how it reports errors.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSearchTransport, MeiliResponseError, MeiliUnreachableError } from '../../search/search-transport';

describe('search transport', () => {
  let server: http.Server;
  let url: string;
  const seen: Array<{ method?: string; path?: string; authorization?: string; contentType?: string; body: unknown }> = [];
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          method: req.method,
          path: req.url,
          authorization: req.headers.authorization,
          contentType: req.headers['content-type'],
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        });
        answer(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (seen.length = 0));

  const json = (status: number, body: unknown) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  it('posts multi-searches and index searches with the key, and reads the answer', async () => {
    const transport = createSearchTransport(url, 'search-key');
    try {
      answer = json(200, { results: [{ hits: [{ id: 'a' }], totalHits: 1 }] });
      expect(await transport.multiSearch({ queries: [{ indexUid: 'store_x', q: 'shirt' }] })).to.deep.equal({
        results: [{ hits: [{ id: 'a' }], totalHits: 1 }],
      });
      answer = json(200, { hits: [] });
      expect(await transport.search('store x', { q: 'sh', limit: 5 })).to.deep.equal({ hits: [] });
      expect(seen).to.deep.equal([
        {
          method: 'POST',
          path: '/multi-search',
          authorization: 'Bearer search-key',
          contentType: 'application/json',
          body: { queries: [{ indexUid: 'store_x', q: 'shirt' }] },
        },
        {
          method: 'POST',
          path: '/indexes/store%20x/search',
          authorization: 'Bearer search-key',
          contentType: 'application/json',
          body: { q: 'sh', limit: 5 },
        },
      ]);
    } finally {
      transport.close();
    }
  });

  it("reports Meilisearch's errors with their status and code", async () => {
    const transport = createSearchTransport(url, 'k');
    try {
      answer = json(404, { message: 'Index `store_x` not found.', code: 'index_not_found', type: 'invalid_request' });
      const error = await transport.multiSearch({ queries: [] }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(MeiliResponseError);
      expect(error).to.include({ status: 404, code: 'index_not_found', message: 'Index `store_x` not found.' });
      answer = (_req, res) => {
        res.writeHead(502);
        res.end('<html>bad gateway</html>');
      };
      expect(await transport.multiSearch({ queries: [] }).catch((e: unknown) => e)).to.be.instanceOf(MeiliUnreachableError);
    } finally {
      transport.close();
    }
  });

  it('gives up after its timeout, and when nothing listens', async () => {
    const slow = createSearchTransport(url, 'k', 100);
    try {
      answer = (_req, res) => setTimeout(() => json(200, { results: [] })(_req, res), 1_000);
      const started = Date.now();
      const error = await slow.multiSearch({ queries: [] }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(MeiliUnreachableError);
      expect((error as Error).message).to.match(/within 100 ms/);
      expect(Date.now() - started).to.be.below(900);
    } finally {
      slow.close();
    }
    const nobody = createSearchTransport('http://127.0.0.1:1', 'k');
    try {
      expect(await nobody.multiSearch({ queries: [] }).catch((e: unknown) => e)).to.be.instanceOf(MeiliUnreachableError);
    } finally {
      nobody.close();
    }
  });
});
