/** The indexer's product batcher: bursts of product deliveries become few Meilisearch writes. */
import { expect } from 'chai';
import { ProductBatcher, type SyncProducts } from '../../indexer/product-batcher';
import { sleep } from '../helpers/wait';

class Refused extends Error {}

describe('indexer: product batcher', () => {
  /** A fake syncProducts that records its calls; `refuse` ids make a whole call fail with a refusal, `down` with another error. */
  function recorder(options: { refuse?: string[]; down?: boolean; delayMs?: number } = {}): {
    calls: string[][];
    concurrent: number[];
    sync: SyncProducts;
  } {
    const calls: string[][] = [];
    const concurrent: number[] = [];
    let running = 0;
    const sync: SyncProducts = async (ids) => {
      calls.push([...ids]);
      running += 1;
      concurrent.push(running);
      await sleep(options.delayMs ?? 5); // the write takes time, so batches overlap
      running -= 1;
      if (options.down) throw new Error('connect ECONNREFUSED');
      if (ids.some((id) => options.refuse?.includes(id))) throw new Refused('document refused');
      return { stores: new Set(['store-a']) };
    };
    return { calls, concurrent, sync };
  }
  const options = { maxBatch: 100, lingerMs: 10, maxInFlight: 2 };
  const isRefusal = (error: unknown): boolean => error instanceof Refused;

  it('writes products that arrive together in one call, each once, and settles every delivery with the changed stores', async () => {
    const { calls, sync } = recorder();
    const batcher = new ProductBatcher(sync, options, isRefusal);
    const settled = await Promise.all(['p1', 'p2', 'p3', 'p2'].map((id) => batcher.sync(id, [])));
    expect(calls).to.deep.equal([['p1', 'p2', 'p3']]);
    for (const stores of settled) expect([...stores]).to.deep.equal(['store-a']);
  });

  it('starts a full batch at once and keeps at most maxInFlight writes running, the next batch filling meanwhile', async () => {
    const { calls, concurrent, sync } = recorder({ delayMs: 30 });
    const batcher = new ProductBatcher(sync, { maxBatch: 3, lingerMs: 1_000, maxInFlight: 2 }, isRefusal);
    const ids = Array.from({ length: 10 }, (_, i) => `p${i}`);
    const started = Date.now();
    const all = ids.map((id) => batcher.sync(id, []));
    // The tail (1 product) lingers; the full batches do not wait for it.
    await Promise.all(all.slice(0, 9));
    expect(Date.now() - started).to.be.below(900);
    expect(Math.max(...concurrent)).to.be.at.most(2);
    await Promise.all(all);
    expect(calls.flat().sort()).to.deep.equal([...ids].sort());
    expect(calls.length).to.be.at.most(5);
  });

  it('lets patient deliveries (an import) gather for patientLingerMs, and a waiting shopper-facing delivery cuts that short', async () => {
    const { calls, sync } = recorder();
    const batcher = new ProductBatcher(sync, { maxBatch: 100, lingerMs: 10, patientLingerMs: 150, maxInFlight: 2 }, isRefusal);
    let started = Date.now();
    const first = [batcher.sync('a1', [], true), batcher.sync('a2', [], true)];
    await sleep(60); // time passes within the patient linger (150 ms)
    // Still gathering: a second import batch joins the same write.
    first.push(batcher.sync('a3', [], true));
    await Promise.all(first);
    expect(Date.now() - started).to.be.at.least(140);
    expect(calls).to.deep.equal([['a1', 'a2', 'a3']]);

    started = Date.now();
    const second = [batcher.sync('b1', [], true), batcher.sync('b2', [], true)];
    const urgent = batcher.sync('u1', []);
    await Promise.all([...second, urgent]);
    expect(Date.now() - started).to.be.below(120);
    expect(calls[1]).to.deep.equal(['b1', 'b2', 'u1']);
  });

  it('retries a refused batch one product at a time, so only the refused product fails', async () => {
    const { calls, sync } = recorder({ refuse: ['bad'] });
    const batcher = new ProductBatcher(sync, options, isRefusal);
    const results = await Promise.allSettled(['p1', 'bad', 'p2'].map((id) => batcher.sync(id, [])));
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).to.deep.equal([['p1', 'bad', 'p2'], ['p1'], ['bad'], ['p2']]);
  });

  it('fails the whole batch at once when Meilisearch cannot be reached (no per-product retries)', async () => {
    const { calls, sync } = recorder({ down: true });
    const batcher = new ProductBatcher(sync, options, isRefusal);
    const results = await Promise.allSettled(['p1', 'p2', 'p3'].map((id) => batcher.sync(id, [])));
    expect(results.every((r) => r.status === 'rejected')).to.equal(true);
    expect(calls).to.have.length(1);
    // The next burst is written again once it comes back.
    const after = new ProductBatcher(recorder().sync, options, isRefusal);
    expect([...(await after.sync('p1', []))]).to.deep.equal(['store-a']);
  });

  it('passes the fallbacks of every delivery of the batch, merged', async () => {
    const seen: string[][] = [];
    const batcher = new ProductBatcher(
      async (_ids, fallback) => {
        seen.push([...fallback].sort());
        return { stores: new Set(fallback) };
      },
      options,
      isRefusal,
    );
    await Promise.all([batcher.sync('p1', ['s1']), batcher.sync('p2', ['s2', 's1'])]);
    expect(seen).to.deep.equal([['s1', 's2']]);
  });
});
