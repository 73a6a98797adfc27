/** Image preparation (sniffing, pixel limit, orientation, alpha) and the embedding batcher, without a model. */
import { expect } from 'chai';
import sharp from 'sharp';
import { ImageError, prepareImage, sniffImageFormat, type PreparedImage } from '../../vision/image';
import { EmbeddingBatcher, l2normalise, type Embedder } from '../../vision/embedder';

const solid = (width: number, height: number, background: { r: number; g: number; b: number; alpha?: number }) =>
  sharp({ create: { width, height, channels: background.alpha === undefined ? 3 : 4, background } });

async function reason(bytes: Buffer, maxPixels = 1_000_000): Promise<string | undefined> {
  try {
    await prepareImage(bytes, { size: 32, maxPixels });
    return undefined;
  } catch (error) {
    return (error as ImageError).reason;
  }
}

describe('vision: image preparation', () => {
  it('sniffs the format from the bytes, whatever the name or header says', async () => {
    const base = solid(8, 8, { r: 1, g: 2, b: 3 });
    expect(sniffImageFormat(await base.clone().jpeg().toBuffer())).to.equal('jpeg');
    expect(sniffImageFormat(await base.clone().png().toBuffer())).to.equal('png');
    expect(sniffImageFormat(await base.clone().webp().toBuffer())).to.equal('webp');
    expect(sniffImageFormat(await base.clone().gif().toBuffer())).to.equal('gif');
    expect(sniffImageFormat(await base.clone().tiff().toBuffer())).to.equal('tiff');
    expect(sniffImageFormat(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).to.equal(undefined);
    expect(sniffImageFormat(Buffer.from('%PDF-1.7 not an image at all'))).to.equal(undefined);
    expect(sniffImageFormat(Buffer.alloc(4))).to.equal(undefined);
  });

  it('refuses what is not an image, a truncated image, and too many pixels before decoding', async () => {
    expect(await reason(Buffer.from('GIF89a but then nothing sensible follows here'))).to.equal('undecodable');
    expect(await reason(Buffer.from('hello, world, this is text'))).to.equal('not_an_image');
    const png = await solid(64, 64, { r: 9, g: 9, b: 9 }).png().toBuffer();
    expect(await reason(png.subarray(0, 40))).to.equal('undecodable');
    expect(await reason(await solid(2000, 1000, { r: 0, g: 0, b: 0 }).png().toBuffer(), 1_000_000)).to.equal('too_many_pixels');
    expect(await reason(await solid(1000, 1000, { r: 0, g: 0, b: 0 }).png().toBuffer(), 1_000_000)).to.equal(undefined);
  });

  it('gives the model a square sRGB input: transparency flattened on white, EXIF orientation applied', async () => {
    const clear = await prepareImage(await solid(40, 20, { r: 0, g: 0, b: 0, alpha: 0 }).png().toBuffer(), { size: 16, maxPixels: 1e6 });
    expect(clear.data.length).to.equal(16 * 16 * 3);
    expect([...clear.data.subarray(0, 3)]).to.deep.equal([255, 255, 255]);
    expect(clear).to.include({ width: 40, height: 20, format: 'png', size: 16 });

    // Left half red, right half blue, stored rotated: orientation 3 (180°) puts blue on the left.
    const halves = await sharp({ create: { width: 64, height: 32, channels: 3, background: { r: 255, g: 0, b: 0 } } })
      .composite([{ input: await solid(32, 32, { r: 0, g: 0, b: 255 }).png().toBuffer(), left: 32, top: 0 }])
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 3 })
      .toBuffer();
    const upright = await prepareImage(halves, { size: 32, maxPixels: 1e6 });
    // Centre crop of a 2:1 image keeps the middle; the left-most pixel of the middle row is blue after rotation.
    const row = 16 * 32 * 3;
    const [r, , b] = [...upright.data.subarray(row, row + 3)];
    expect(b!).to.be.greaterThan(200);
    expect(r!).to.be.lessThan(60);
  });
});

describe('vision: embedding batcher', () => {
  function fakeEmbedder(calls: number[]): Embedder {
    return {
      model: 'mobilenet-v2',
      dimensions: 2,
      inputSize: 1,
      async embedImages(images: PreparedImage[]) {
        calls.push(images.length);
        if (images.some((i) => i.width === 0)) throw new Error('bad batch');
        return images.map((i) => l2normalise(Float32Array.from([i.width, 1])));
      },
      async dispose() {},
    };
  }
  const image = (width: number): PreparedImage => ({ data: Buffer.alloc(3), size: 1, width, height: 1, format: 'png' });

  it('batches concurrent callers up to the batch size and answers each with its own vector', async () => {
    const calls: number[] = [];
    const batcher = new EmbeddingBatcher(fakeEmbedder(calls), 4, 5);
    const vectors = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((w) => batcher.embed(image(w))));
    expect(calls.reduce((a, b) => a + b, 0)).to.equal(10);
    expect(Math.max(...calls)).to.be.at.most(4);
    expect(calls.length).to.be.at.most(4);
    vectors.forEach((v, i) => expect(v[0]! / v[1]!).to.be.closeTo(i + 1, 1e-5));
  });

  it('fails only the callers of a failing batch; later batches still run', async () => {
    const calls: number[] = [];
    const batcher = new EmbeddingBatcher(fakeEmbedder(calls), 2, 1);
    const results = await Promise.allSettled([
      batcher.embed(image(0)),
      batcher.embed(image(1)),
      batcher.embed(image(2)),
      batcher.embed(image(3)),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
  });
});
