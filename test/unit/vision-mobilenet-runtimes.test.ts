/**
 * The real mobilenet-v2 model: onnxruntime (the default) and tfjs wasm compute the same vectors, so
 * vectors stored by either stay comparable; and a batch of concurrent query images gives each caller
 * the vector its image gets alone.
 */
import { expect } from 'chai';
import sharp from 'sharp';
import { disposeEmbedders, getEmbedder, type Embedder } from '../../vision/embedder';
import { prepareImage, type PreparedImage } from '../../vision/image';
import { QueryImageEmbedder } from '../../vision/query-embedding';

/** Simple "product photos": a coloured background with a shape. */
async function photos(): Promise<Buffer[]> {
  const shapes = [
    '<circle cx="120" cy="90" r="60" fill="rgb(220,30,30)"/>',
    '<rect x="40" y="30" width="150" height="110" fill="rgb(20,60,210)"/>',
    '<polygon points="120,10 230,170 10,170" fill="rgb(250,210,20)"/>',
    '<rect x="0" y="70" width="240" height="40" fill="rgb(30,160,60)"/>',
  ];
  return Promise.all(
    shapes.map((shape, i) =>
      sharp(
        Buffer.from(
          `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="180"><rect width="240" height="180" fill="rgb(${240 - i * 50},240,240)"/>${shape}</svg>`,
        ),
      )
        .jpeg({ quality: 85 })
        .toBuffer(),
    ),
  );
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  expect(a.length).to.equal(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i += 1) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

describe('vision: the mobilenet-v2 model', function () {
  this.timeout(180_000);
  let onnx: Embedder;
  let bytes: Buffer[];
  let prepared: PreparedImage[];

  before(async () => {
    onnx = await getEmbedder('mobilenet-v2', { clipModelDir: undefined, mobilenetRuntime: 'onnx' });
    bytes = await photos();
    prepared = await Promise.all(bytes.map((b) => prepareImage(b, { size: onnx.inputSize, maxPixels: 1_000_000 })));
  });

  after(async () => {
    await disposeEmbedders();
  });

  it('runs on onnxruntime by default and gives the vectors of the tfjs runtime', async () => {
    expect((onnx as { runtime?: string }).runtime).to.equal('onnx');
    const tfjs = await getEmbedder('mobilenet-v2', { clipModelDir: undefined, mobilenetRuntime: 'tfjs' });
    expect((tfjs as { runtime?: string }).runtime).to.equal('tfjs');
    const [a, b] = await Promise.all([onnx.embedImages(prepared), tfjs.embedImages(prepared)]);
    for (let i = 0; i < prepared.length; i += 1) {
      expect(a[i]!.length).to.equal(1280);
      expect(maxDifference(a[i]!, b[i]!)).to.be.below(1e-4);
    }
    // Different photos get different vectors (the comparison above is not between constants).
    expect(maxDifference(a[0]!, a[1]!)).to.be.above(0.01);
  });

  it('loads again after its models were disposed, with the same vectors (its thread was parked, not ended)', async () => {
    const [before] = await onnx.embedImages([prepared[0]!]);
    await disposeEmbedders();
    await onnx.embedImages([prepared[0]!]).then(
      () => expect.fail('a disposed embedder must not embed'),
      (error: Error) => expect(error.message).to.match(/disposed/),
    );
    for (let round = 0; round < 2; round += 1) {
      onnx = await getEmbedder('mobilenet-v2', { clipModelDir: undefined, mobilenetRuntime: 'onnx' });
      expect((onnx as { runtime?: string }).runtime).to.equal('onnx');
      const [again] = await onnx.embedImages([prepared[0]!]);
      expect(maxDifference(before!, again!)).to.be.below(1e-6);
      if (round === 0) await disposeEmbedders();
    }
  });

  it('batches concurrent query images and gives each caller the vector its image gets alone', async () => {
    const calls: number[] = [];
    const counting: Embedder = {
      model: onnx.model,
      dimensions: onnx.dimensions,
      inputSize: onnx.inputSize,
      embedImages: (images) => {
        calls.push(images.length);
        return onnx.embedImages(images);
      },
      dispose: async () => undefined,
    };
    // A batch of exactly the four (a long linger, so decoding order and speed cannot split them).
    const query = new QueryImageEmbedder(counting, {
      maxPixels: 1_000_000,
      queryCacheSize: 0,
      queryBatchSize: 4,
      queryBatchLingerMs: 10_000,
    });
    const batched = await Promise.all(bytes.map((b) => query.embed(b)));
    expect(calls).to.deep.equal([4]);
    for (let i = 0; i < bytes.length; i += 1) {
      const [alone] = await onnx.embedImages([prepared[i]!]);
      expect(maxDifference(batched[i]!.vector, alone!)).to.be.below(1e-4);
    }
  });
});
