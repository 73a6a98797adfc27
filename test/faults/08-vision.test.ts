/**
 * The vision worker killed with -9 while it embeds product images, restarted 3 s later. Its store
 * has visual search on and the writer gives every product an image: within 35 s of the death every
 * published image must be embedded (stored in PostgreSQL) and every document must carry exactly the
 * stored vectors, besides the usual index check of both stores.
 */
import { createStore } from './api';
import { FAULT_TIMEOUT_MS, restore, trafficFault, WORKER_TARGET_MS } from './flow';
import { sleep, waitFor } from './util';
import { Writer } from './workload';
import { world } from './world';

describe('fault: vision worker kill -9, restart after 3 s', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  let storeId: string;
  let writer: Writer;

  before(async () => {
    const w = world();
    storeId = await createStore(w.shop.api, 'Vision');
    await w.shop.api.expect(200, 'PATCH', `/api/v1/visual-search/stores/${storeId}/settings`, { body: { enabled: true } });
    writer = new Writer(w.shop.api, storeId, 'vision', { images: w.images, maxLive: 40, pauseMs: 150 });
    w.writers.push(writer);
  });
  after(() => restore());

  it('embeds every image and the index equals PostgreSQL within 35 s of the death', () =>
    trafficFault({
      fault: 'vision kill -9, restart after 3 s',
      targetMs: WORKER_TARGET_MS,
      checks: [{ storeId: world().shop.storeId }, { storeId, vectors: true }],
      writers: [world().writer, writer],
      inject: async (w) => {
        // Kill it while it works: once its model is loaded and a first image is embedded.
        await waitFor(
          'the vision worker to embed a first image',
          120_000,
          async () => {
            const [row] = await w.db.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM product_image_vectors WHERE store_id = $1 AND status = 'INDEXED'",
              [storeId],
            );
            return row!.n > 0;
          },
          500,
        );
        const died = await w.roles.vision.kill9();
        await sleep(3_000);
        await w.roles.vision.start();
        return died;
      },
    }));
});
