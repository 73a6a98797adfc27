/**
 * The query-image path (vision/query-embedding.ts) with a counting stand-in for the model: the cache
 * by content hash, sharing between identical concurrent uploads, and batching of concurrent queries.
 */
import { expect } from 'chai';
import sharp from 'sharp';
import type { Embedder } from '../../vision/embedding';
import { ImageError, type PreparedImage } from '../../vision/image';
import { EmbeddingBatcher } from '../../vision/embedder';
import { QueryImageEmbedder, type QueryEmbeddingSettings } from '../../vision/query-embedding';
import { eventually } from '../helpers/wait';

const SIZE = 16;

/** A 3-d "embedding": the mean colour of the prepared image, so each image has its own vector. */
function meanColour(image: PreparedImage): Float32Array {
  const sums = [0, 0, 0];
  for (let i = 0; i < image.data.length; i += 1) sums[i % 3]! += image.data[i]!;
  return Float32Array.from(sums.map((s) => s / (image.data.length / 3) / 255));
}

/**
 * A model stand-in that records every call. With `gated`, each call waits until release() is
 * called, so a test decides when the "inference" ends and what arrives meanwhile.
 */
class CountingEmbedder implements Embedder {
  readonly dimensions = 3;
  readonly inputSize = SIZE;
  /** Images per call, in call order. */
  readonly calls: number[] = [];
  private gates: Array<() => void> = [];

  constructor(
    private readonly gated = false,
    readonly model: Embedder['model'] = 'mobilenet-v2',
  ) {}

  get imagesEmbedded(): number {
    return this.calls.reduce((a, b) => a + b, 0);
  }

  async embedImages(images: PreparedImage[]): Promise<Float32Array[]> {
    this.calls.push(images.length);
    if (this.gated) await new Promise<void>((resolve) => this.gates.push(resolve));
    return images.map(meanColour);
  }

  /** Ends the oldest call still waiting. */
  release(): void {
    this.gates.shift()?.();
  }

  get waiting(): number {
    return this.gates.length;
  }

  async dispose(): Promise<void> {}
}

const photo = (r: number, g: number, b: number): Promise<Buffer> =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

const settings = (overrides: Partial<QueryEmbeddingSettings> = {}): QueryEmbeddingSettings => ({
  maxPixels: 1_000_000,
  queryCacheSize: 100,
  queryBatchSize: 8,
  queryBatchLingerMs: 0,
  ...overrides,
});

/** Waits until `done()` holds (sharp decodes on libuv's threads, so how long depends on the machine's load). */
async function until(done: () => boolean): Promise<void> {
  await eventually(done, 'the condition', { timeoutMs: 10_000, intervalMs: 1 });
}

describe('vision: query embeddings', () => {
  describe('the cache by content hash', () => {
    it('embeds the same photo uploaded twice once, and two different photos twice', async () => {
      const model = new CountingEmbedder();
      const query = new QueryImageEmbedder(model, settings());
      const red = await photo(200, 10, 10);
      const first = await query.embed(red);
      const again = await query.embed(Buffer.from(red)); // the same bytes in another buffer
      expect(model.imagesEmbedded).to.equal(1);
      expect(first.source).to.equal('embedded');
      expect(again.source).to.equal('cache');
      expect(Array.from(again.vector)).to.deep.equal(Array.from(first.vector));

      const blue = await query.embed(await photo(10, 10, 200));
      expect(model.imagesEmbedded).to.equal(2);
      expect(blue.source).to.equal('embedded');
      expect(Array.from(blue.vector)).to.not.deep.equal(Array.from(first.vector));
    });

    it('keeps at most the configured number of vectors, forgetting the least recently used', async () => {
      const model = new CountingEmbedder();
      const config = settings({ queryCacheSize: 2 });
      const query = new QueryImageEmbedder(model, config);
      const [a, b, c] = await Promise.all([photo(255, 0, 0), photo(0, 255, 0), photo(0, 0, 255)]);
      await query.embed(a!);
      await query.embed(b!);
      expect((await query.embed(a!)).source).to.equal('cache'); // a is now the most recently used
      await query.embed(c!); // evicts b
      expect(query.cached).to.equal(2);
      expect(model.imagesEmbedded).to.equal(3);
      expect((await query.embed(a!)).source).to.equal('cache');
      expect((await query.embed(b!)).source).to.equal('embedded');
      expect(model.imagesEmbedded).to.equal(4);

      // A smaller setting applies at once; 0 keeps nothing.
      config.queryCacheSize = 0;
      expect((await query.embed(a!)).source).to.equal('embedded');
      expect((await query.embed(a!)).source).to.equal('embedded');
      expect(model.imagesEmbedded).to.equal(6);
    });

    it('keys by model: another model embeds the same bytes again', async () => {
      const mobilenet = new CountingEmbedder();
      const other = new CountingEmbedder(false, 'clip');
      const bytes = await photo(90, 90, 30);
      await new QueryImageEmbedder(mobilenet, settings()).embed(bytes);
      await new QueryImageEmbedder(other, settings()).embed(bytes);
      expect(mobilenet.imagesEmbedded).to.equal(1);
      expect(other.imagesEmbedded).to.equal(1);
    });

    it('still refuses a known photo once the pixel limit is below its size, and never caches what is not an image', async () => {
      const model = new CountingEmbedder();
      const config = settings();
      const query = new QueryImageEmbedder(model, config);
      const bytes = await photo(1, 2, 3); // 40×30 = 1200 pixels
      await query.embed(bytes);
      config.maxPixels = 1000;
      const refused = await query.embed(bytes).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(ImageError);
      expect((refused as ImageError).reason).to.equal('too_many_pixels');

      const text = Buffer.from('this is a text file and not a photo of anything');
      for (let i = 0; i < 2; i += 1) {
        const error = await query.embed(text).catch((e: unknown) => e);
        expect((error as ImageError).reason).to.equal('not_an_image');
      }
      expect(query.cached).to.equal(1);
      expect(model.imagesEmbedded).to.equal(1);
    });
  });

  describe('identical concurrent uploads', () => {
    for (const cacheSize of [100, 0]) {
      it(`share one embedding (cache size ${cacheSize})`, async () => {
        const model = new CountingEmbedder(true);
        const query = new QueryImageEmbedder(model, settings({ queryCacheSize: cacheSize }));
        const bytes = await photo(30, 160, 90);
        const all = Promise.all(Array.from({ length: 5 }, () => query.embed(Buffer.from(bytes))));
        await until(() => model.waiting === 1);
        model.release();
        const results = await all;
        expect(model.calls).to.deep.equal([1]);
        expect(results.map((r) => r.source).sort()).to.deep.equal(['embedded', 'shared', 'shared', 'shared', 'shared']);
        for (const r of results) expect(Array.from(r.vector)).to.deep.equal(Array.from(results[0]!.vector));
      });
    }

    it('pass the failure of the one decoding to every waiting caller', async () => {
      const model = new CountingEmbedder();
      const query = new QueryImageEmbedder(model, settings());
      const truncated = (await photo(1, 1, 1)).subarray(0, 40);
      const outcomes = await Promise.all(Array.from({ length: 3 }, () => query.embed(truncated).catch((e: unknown) => e)));
      for (const outcome of outcomes) expect((outcome as ImageError).reason).to.equal('undecodable');
      expect(model.imagesEmbedded).to.equal(0);
    });
  });

  describe('batching', () => {
    const images = (n: number): PreparedImage[] =>
      Array.from({ length: n }, (_, i) => ({
        data: Buffer.alloc(SIZE * SIZE * 3, (i * 23) % 256),
        size: SIZE,
        width: SIZE,
        height: SIZE,
        format: 'png' as const,
      }));

    it('starts a lone query at once and embeds those that arrive meanwhile as one batch, each caller getting its own vector', async () => {
      const model = new CountingEmbedder(true);
      const batcher = new EmbeddingBatcher(
        model,
        () => 8,
        () => 0,
      );
      const all = images(5);
      const answers = Promise.all(all.map((image) => batcher.embed(image)));
      await until(() => model.waiting === 1);
      expect(model.calls).to.deep.equal([1]); // the first did not wait for company
      model.release();
      await until(() => model.waiting === 1);
      expect(model.calls).to.deep.equal([1, 4]);
      model.release();
      const vectors = await answers;
      vectors.forEach((vector, i) => expect(Array.from(vector)).to.deep.equal(Array.from(meanColour(all[i]!))));
    });

    it('never puts more than the batch size in one call', async () => {
      const model = new CountingEmbedder(true);
      const batcher = new EmbeddingBatcher(
        model,
        () => 3,
        () => 0,
      );
      const all = images(8);
      const answers = Promise.all(all.map((image) => batcher.embed(image)));
      for (let call = 0; call < 4; call += 1) {
        await until(() => model.waiting === 1);
        model.release();
      }
      const vectors = await answers;
      expect(model.calls).to.deep.equal([1, 3, 3, 1]);
      vectors.forEach((vector, i) => expect(Array.from(vector)).to.deep.equal(Array.from(meanColour(all[i]!))));
    });

    it('with a linger, waits for company when the model is idle, and sends a full batch at once', async () => {
      const model = new CountingEmbedder();
      const batcher = new EmbeddingBatcher(
        model,
        () => 4,
        () => 50,
      );
      await Promise.all(images(3).map((image) => batcher.embed(image)));
      expect(model.calls).to.deep.equal([3]);
      await Promise.all(images(4).map((image) => batcher.embed(image)));
      expect(model.calls).to.deep.equal([3, 4]);
    });

    it('fails only the callers of a failed batch', async () => {
      let calls = 0;
      const flaky: Embedder = {
        model: 'mobilenet-v2',
        dimensions: 3,
        inputSize: SIZE,
        embedImages: async (batch) => {
          calls += 1;
          if (calls === 1) throw new Error('the model thread exited');
          return batch.map(meanColour);
        },
        dispose: async () => undefined,
      };
      const batcher = new EmbeddingBatcher(
        flaky,
        () => 8,
        () => 0,
      );
      const [first, ...rest] = images(3).map((image) =>
        batcher.embed(image).then(
          () => 'ok',
          (e: Error) => e.message,
        ),
      );
      expect(await first).to.equal('the model thread exited');
      expect(await Promise.all(rest)).to.deep.equal(['ok', 'ok']);
    });
  });
});
