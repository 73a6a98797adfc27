/**
 * Embedders that `bench:vision-quality` compares with the product's but that stores cannot choose
 * (docs/benchmarks.md, "Visual relevance"): candidates for a better default, measured before any is
 * wired into vision/. Each loads in the calling thread.
 *
 * - `inception-v3`: the InceptionV3 bundled in nsfwjs (299×299 RGB scaled to [0, 1], as nsfwjs
 *   trains it), the 2048 channels of its `mixed9` block max-pooled over the 8×8 map, L2-normalised,
 *   on the tfjs wasm backend. The last block (`mixed10`) and its average pool, which feed nsfwjs's
 *   classifier, carry more of what that classifier was trained for and less of what a product is:
 *   they group the reference photos worse (docs/benchmarks.md).
 */
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { load } from 'nsfwjs';
import { PROJECT_ROOT } from '../../lib/config';
import { l2normalise, type Embedder } from '../../vision/embedding';

export const CANDIDATES = ['inception-v3'] as const;
export type Candidate = (typeof CANDIDATES)[number];

/** What the benchmark needs of an embedder. */
export type BenchEmbedder = Pick<Embedder, 'dimensions' | 'inputSize' | 'embedImages' | 'dispose'>;

const INCEPTION_INPUT = 299;
const INCEPTION_BLOCK = 'mixed9';

async function wasmBackend(): Promise<void> {
  setWasmPaths(`${path.join(PROJECT_ROOT, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist')}${path.sep}`);
  if (!(await tf.setBackend('wasm'))) throw new Error('the tfjs wasm backend could not start');
  await tf.ready();
}

async function loadInception(): Promise<BenchEmbedder> {
  await wasmBackend();
  // nsfwjs announces the model it loads on the console; keep stdout to the benchmark's records.
  /* eslint-disable no-console */
  const { info } = console;
  console.info = () => undefined;
  let nsfw: Awaited<ReturnType<typeof load>>;
  try {
    nsfw = await load('InceptionV3', { size: INCEPTION_INPUT });
  } finally {
    console.info = info;
  }
  /* eslint-enable no-console */
  const model = nsfw.model as tf.LayersModel;
  const block = model.layers.find((l) => l.name === INCEPTION_BLOCK);
  if (!block) throw new Error(`the bundled InceptionV3 has no ${INCEPTION_BLOCK} layer`);
  const features = tf.model({ inputs: model.inputs, outputs: block.output as tf.SymbolicTensor });
  const dimensions = (block.output as tf.SymbolicTensor).shape[3]!;
  const size = INCEPTION_INPUT;
  return {
    dimensions,
    inputSize: size,
    async embedImages(images) {
      if (images.length === 0) return [];
      const input = new Float32Array(images.length * size * size * 3);
      images.forEach((image, n) => {
        if (image.size !== size) throw new Error(`image prepared for ${image.size}px, the model takes ${size}px`);
        const offset = n * size * size * 3;
        for (let i = 0; i < size * size * 3; i += 1) input[offset + i] = image.data[i]! / 255;
      });
      const pooled = tf.tidy(() => (features.predict(tf.tensor4d(input, [images.length, size, size, 3])) as tf.Tensor4D).max([1, 2]));
      try {
        const flat = (await pooled.data()) as Float32Array;
        return images.map((_, n) => l2normalise(flat.slice(n * dimensions, (n + 1) * dimensions)));
      } finally {
        pooled.dispose();
      }
    },
    async dispose() {
      // The features model shares its layers with nsfwjs's: disposing that one frees the weights
      // (disposing both would dispose the shared layers twice).
      nsfw.dispose();
    },
  };
}

export function loadCandidate(name: Candidate): Promise<BenchEmbedder> {
  switch (name) {
    case 'inception-v3':
      return loadInception();
  }
}
