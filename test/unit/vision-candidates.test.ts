/**
 * The candidate embedder that bench:vision-quality compares with the product's
 * (scripts/bench/vision-candidates.ts): the InceptionV3 bundled in nsfwjs loads offline and gives
 * 2048-d, L2-normalised vectors, the same for the same image and in a batch as alone, different for
 * different images.
 */
import { expect } from 'chai';
import sharp from 'sharp';
import { loadCandidate, type BenchEmbedder } from '../../scripts/bench/vision-candidates';
import { prepareImage, type PreparedImage } from '../../vision/image';

async function photo(fill: string, shape: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="${fill}"/>${shape}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('vision-quality candidates: inception-v3', function () {
  // Loading 22 MB of weights and a 299 px InceptionV3 on the wasm backend takes seconds on 2 cores.
  this.timeout(180_000);
  let embedder: BenchEmbedder;
  let images: PreparedImage[];

  before(async () => {
    embedder = await loadCandidate('inception-v3');
    const bytes = await Promise.all([
      photo('rgb(240,240,240)', '<circle cx="160" cy="120" r="80" fill="rgb(200,30,30)"/>'),
      photo('rgb(30,40,60)', '<rect x="40" y="60" width="240" height="60" fill="rgb(240,200,20)"/>'),
    ]);
    images = await Promise.all(bytes.map((b) => prepareImage(b, { size: embedder.inputSize, maxPixels: 1_000_000 })));
  });

  after(async () => {
    await embedder?.dispose();
  });

  it('takes 299 px images and gives 2048-d unit vectors', async () => {
    expect(embedder.inputSize).to.equal(299);
    expect(embedder.dimensions).to.equal(2048);
    const [a, b] = await embedder.embedImages(images);
    for (const v of [a!, b!]) {
      expect(v).to.be.instanceOf(Float32Array);
      expect(v.length).to.equal(2048);
      expect(norm(v)).to.be.closeTo(1, 1e-5);
    }
  });

  it('is deterministic, the same in a batch as alone, and tells different images apart', async () => {
    const [batchA, batchB] = await embedder.embedImages(images);
    const [aloneA] = await embedder.embedImages([images[0]!]);
    const [againA] = await embedder.embedImages([images[0]!]);
    expect(Array.from(againA!)).to.deep.equal(Array.from(aloneA!));
    expect(cosine(batchA!, aloneA!)).to.be.closeTo(1, 1e-5);
    expect(cosine(batchA!, batchB!)).to.be.below(0.99);
  });

  it('refuses an image prepared for another size', async () => {
    const small = await prepareImage(await photo('white', ''), { size: 224, maxPixels: 1_000_000 });
    let error: unknown;
    await embedder.embedImages([small]).catch((e: unknown) => (error = e));
    expect((error as Error)?.message).to.match(/prepared for 224px, the model takes 299px/);
  });
});
