/**
 * Per-client bounds of the anonymous storefront: product views count once per client and product in
 * a window (repeats answer 204 and count nothing), public search and suggest share a per-client
 * request limit (429 rate_limited with Retry-After), and zero-result queries are capped per store.
 * Clients are told apart by the address the storefront relays (api/http/client-relay.ts); this file
 * has a rate limiter of its own (startIsolatedServer), so other files' requests never count here.
 */
import Redis from 'ioredis';
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem, startIsolatedServer } from '../helpers/accounts';
import { merchant, product, variant, type Merchant } from '../helpers/fixtures';
import { indexHandler } from '../helpers/indexing';
import { relayHeaders } from '../../api/http/client-relay';
import { RateLimiter } from '../../storage/rate-limit';
import { uuidv7 } from '../../storage/ids';
import { eventually } from '../helpers/wait';
import type { Config } from '../../lib/config';

describe('public per-client limits', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started), { start: () => startIsolatedServer() });

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });
  const db = <T = unknown>(sql: string, params: unknown[]): Promise<T> => server.runtime.dataSource.query(sql, params);
  /** Request headers of the client at `ip`, as the storefront relays a shopper's address. */
  const client = (ip: string): Record<string, string> => relayHeaders(server.runtime.config.appSecret, ip);
  /** This server's settings (its own copy: changing them touches no other file's server). */
  const settings = (): Config => server.runtime.services.config;

  /** Runs `body` with this server's search settings changed by `change`. */
  async function withSearchSettings(change: Partial<Config['search']>, body: () => Promise<void>): Promise<void> {
    const saved = settings().search;
    (settings() as { search: Config['search'] }).search = { ...saved, ...change };
    try {
      await body();
    } finally {
      (settings() as { search: Config['search'] }).search = saved;
    }
  }

  async function published(m: Merchant, title: string): Promise<string> {
    const id = await product(server, m, { title, status: 'PUBLISHED', price: '12', published_at: new Date() });
    await variant(server, m, id, { stock: 3 });
    return id;
  }

  describe('POST …/products/{productId}/view', () => {
    const view = (m: Merchant, productId: string, ip: string): Promise<TestResponse> =>
      call(server, 'POST', `/api/v1/catalog/public/stores/${m.storeId}/products/${productId}/view`, { headers: client(ip) });
    const viewCount = async (productId: string): Promise<number> =>
      Number((await db<Array<{ view_count: string }>>('SELECT view_count FROM products WHERE id = $1', [productId]))[0]!.view_count);

    it('counts one view per client and product in the window; repeats answer 204 and count nothing', async () => {
      const m = await newMerchant();
      const lamp = await published(m, 'Lamp');
      const chair = await published(m, 'Chair');
      // One client reloading the page a hundred times.
      for (let i = 0; i < 100; i += 1) expect((await view(m, lamp, '203.0.113.10')).status).to.equal(204);
      expect(await viewCount(lamp)).to.equal(1);
      // Other clients and other products count on their own.
      expect((await view(m, lamp, '203.0.113.11')).status).to.equal(204);
      expect((await view(m, chair, '203.0.113.10')).status).to.equal(204);
      expect(await viewCount(lamp)).to.equal(2);
      expect(await viewCount(chair)).to.equal(1);
      // An IPv6 client is its /64: another address of the same network is the same client.
      expect((await view(m, lamp, '2001:db8:1:2::10')).status).to.equal(204);
      expect((await view(m, lamp, '2001:db8:1:2:ffff::1')).status).to.equal(204);
      expect((await view(m, lamp, '2001:db8:1:3::10')).status).to.equal(204);
      expect(await viewCount(lamp)).to.equal(4);
      // Unknown and unpublished products still answer 404, whoever asks and however often.
      const draft = await product(server, m, { title: 'Draft', status: 'DRAFT' });
      for (const ip of ['203.0.113.10', '203.0.113.12'])
        for (const id of [draft, uuidv7()]) expectProblem(await view(m, id, ip), 404, 'product_not_found');
    });

    it('counts again once the window has passed', async () => {
      const m = await newMerchant();
      const lamp = await published(m, 'Lamp');
      await withSearchSettings({ productViewWindowSeconds: 1 }, async () => {
        expect((await view(m, lamp, '203.0.113.20')).status).to.equal(204);
        expect((await view(m, lamp, '203.0.113.20')).status).to.equal(204);
        expect(await viewCount(lamp)).to.equal(1);
        // The one-second window passes (polled: the key expires in Redis).
        await eventually(
          async () => {
            await view(m, lamp, '203.0.113.20');
            return (await viewCount(lamp)) === 2;
          },
          'a view after the window to count',
          { timeoutMs: 5_000, intervalMs: 250 },
        );
      });
    });
  });

  describe('public search and suggest', () => {
    let shop: Merchant;
    before(async () => {
      shop = await newMerchant();
      await indexHandler(server).indexer.syncProducts([await published(shop, 'Brass Lamp')]);
    });

    const search = (ip: string, storeId = shop.storeId): Promise<TestResponse> =>
      call(server, 'GET', `/api/v1/catalog/public/search?storeId=${storeId}&q=lamp`, { headers: client(ip) });
    const suggest = (ip: string, storeId = shop.storeId): Promise<TestResponse> =>
      call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${storeId}&q=la`, { headers: client(ip) });

    it('limits requests per client, search and suggest together, with 429 rate_limited and Retry-After', async () => {
      const other = await newMerchant();
      await withSearchSettings({ publicRequestsPerMinute: 4 }, async () => {
        const ip = '198.51.100.40';
        expect((await search(ip)).status).to.equal(200);
        expect((await suggest(ip)).status).to.equal(200);
        expect((await search(ip)).status).to.equal(200);
        // Cached answers count too, and the budget is the client's, across stores.
        expect((await search(ip, other.storeId)).status).to.equal(200);
        for (const res of [await search(ip), await suggest(ip), await search(ip, other.storeId)]) {
          expectProblem(res, 429, 'rate_limited');
          const retryAfter = Number(res.headers.get('retry-after'));
          expect(retryAfter).to.be.within(1, 60);
        }
        // Another client is unaffected; so is a client in another IPv6 /64, but not one in the same /64.
        expect((await search('198.51.100.41')).status).to.equal(200);
        expect((await suggest('198.51.100.41')).status).to.equal(200);
        for (let i = 0; i < 4; i += 1) expect((await search(`2001:db8:7:7::${i + 1}`)).status).to.equal(200);
        expectProblem(await search('2001:db8:7:7:abcd::1'), 429, 'rate_limited');
        expect((await search('2001:db8:7:8::1')).status).to.equal(200);
      });
    });

    it('is generous by default: a shopper typing and paging is far from the limit', () => {
      expect(server.runtime.config.search.publicRequestsPerMinute).to.be.at.least(600);
    });
  });

  describe('while Redis is unreachable', () => {
    it('still limits searches (counted in the process) and lets views through uncounted-as-repeats, as every Redis limit does', async () => {
      const m = await newMerchant();
      const lamp = await published(m, 'Lamp');
      await indexHandler(server).indexer.syncProducts([lamp]);
      const saved = server.runtime.services.rateLimiter;
      // A port nothing listens on.
      const down = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => 1_000 });
      down.on('error', () => undefined);
      server.runtime.services.rateLimiter = new RateLimiter(down, server.runtime.logger, 'down');
      try {
        await withSearchSettings({ publicRequestsPerMinute: 2 }, async () => {
          const searchOnce = () =>
            call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}`, { headers: client('198.51.100.60') });
          for (let i = 0; i < 2; i += 1) expect((await searchOnce()).status).to.equal(200);
          expectProblem(await searchOnce(), 429, 'rate_limited');
          for (let i = 0; i < 3; i += 1)
            expect(
              (
                await call(server, 'POST', `/api/v1/catalog/public/stores/${m.storeId}/products/${lamp}/view`, {
                  headers: client('198.51.100.60'),
                })
              ).status,
            ).to.equal(204);
        });
        const [row] = await db<Array<{ view_count: string }>>('SELECT view_count FROM products WHERE id = $1', [lamp]);
        expect(Number(row!.view_count)).to.equal(3);
      } finally {
        server.runtime.services.rateLimiter = saved;
        down.disconnect();
      }
    });
  });

  describe('zero-result queries', () => {
    it('keeps at most the configured number of distinct queries per store, the most recently seen', async () => {
      const [a, b] = [await newMerchant(), await newMerchant()];
      await indexHandler(server).indexer.syncProducts([await published(a, 'Lamp'), await published(b, 'Lamp')]);
      const rows = async (m: Merchant): Promise<string[]> =>
        (
          await db<Array<{ query: string }>>('SELECT query FROM zero_result_queries WHERE store_id = $1 ORDER BY last_seen_at, query', [
            m.storeId,
          ])
        ).map((r) => r.query);
      const nothing = async (m: Merchant, q: string): Promise<void> => {
        const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=${encodeURIComponent(q)}`, {
          headers: client('198.51.100.70'),
        });
        expect(res.status, res.text).to.equal(200);
        expect(res.json.total).to.equal(0);
      };
      // The search engine is the shared runtime's, and so is the setting its recorder reads.
      const shared = server.runtime.config.search;
      const saved = shared.zeroResultQueriesPerStore;
      shared.zeroResultQueriesPerStore = 3;
      try {
        for (const q of ['zorp one', 'zorp two', 'zorp three']) await nothing(a, q);
        await eventually(async () => (await rows(a)).length === 3, 'three queries to be counted');
        for (const q of ['zorp four', 'zorp five']) await nothing(a, q);
        await eventually(async () => {
          const kept = await rows(a);
          return kept.includes('zorp five') && kept.length === 3;
        }, 'the newest query to be counted and the oldest evicted');
        expect(await rows(a)).to.include.members(['zorp four', 'zorp five']);
        // Another store keeps its own.
        for (const q of ['zorp one', 'zorp two']) await nothing(b, q);
        await eventually(async () => (await rows(b)).length === 2, "the other store's queries to be counted");
        expect(await rows(a)).to.have.length(3);
      } finally {
        shared.zeroResultQueriesPerStore = saved;
      }
    });
  });
});
