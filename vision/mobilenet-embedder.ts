/**
 * MobileNetV2 image features from the weights bundled in nsfwjs (no download, works offline), on the
 * tfjs wasm backend: the 1280-d output of the `flatten_1` layer (global average pooling of the last
 * convolution block), L2-normalised. Input: 224×224 RGB scaled to [0, 1], as nsfwjs trains it.
 */
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { load } from 'nsfwjs';
import { PROJECT_ROOT } from '../lib/config';
import { l2normalise, MOBILENET_DIMENSIONS, MOBILENET_INPUT, type Embedder } from './embedding';
import type { PreparedImage } from './image';

let backendReady: Promise<void> | undefined;

async function wasmBackend(): Promise<void> {
  backendReady ??= (async () => {
    setWasmPaths(`${path.join(PROJECT_ROOT, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist')}${path.sep}`);
    if (!(await tf.setBackend('wasm'))) throw new Error('the tfjs wasm backend could not start');
    await tf.ready();
  })();
  return backendReady;
}

export class MobileNetEmbedder implements Embedder {
  readonly model = 'mobilenet-v2' as const;
  readonly dimensions = MOBILENET_DIMENSIONS;
  readonly inputSize = MOBILENET_INPUT;

  private constructor(
    private readonly features: tf.LayersModel,
    private readonly release: () => void,
  ) {}

  static async load(): Promise<MobileNetEmbedder> {
    await wasmBackend();
    // nsfwjs announces the model it loads on stdout; keep the process's logs to pino.
    // eslint-disable-next-line no-console
    const info = console.info;
    // eslint-disable-next-line no-console
    console.info = () => undefined;
    try {
      const nsfw = await load('MobileNetV2', { size: MOBILENET_INPUT });
      const model = nsfw.model as tf.LayersModel;
      const layer = model.layers.find((l) => l.name === 'flatten_1');
      if (!layer) throw new Error('the bundled MobileNetV2 has no flatten_1 layer');
      const features = tf.model({ inputs: model.inputs, outputs: layer.output as tf.SymbolicTensor });
      return new MobileNetEmbedder(features, () => nsfw.dispose());
    } finally {
      // eslint-disable-next-line no-console
      console.info = info;
    }
  }

  async embedImages(images: PreparedImage[]): Promise<Float32Array[]> {
    if (images.length === 0) return [];
    const size = this.inputSize;
    const pixels = size * size * 3;
    const input = new Float32Array(images.length * pixels);
    images.forEach((image, n) => {
      if (image.size !== size) throw new Error(`image prepared for ${image.size}px, the model takes ${size}px`);
      const offset = n * pixels;
      for (let i = 0; i < pixels; i += 1) input[offset + i] = image.data[i]! / 255;
    });
    const x = tf.tensor4d(input, [images.length, size, size, 3]);
    let y: tf.Tensor | undefined;
    try {
      y = this.features.predict(x) as tf.Tensor;
      const flat = (await y.data()) as Float32Array;
      return images.map((_, n) => l2normalise(flat.slice(n * this.dimensions, (n + 1) * this.dimensions)));
    } finally {
      x.dispose();
      y?.dispose();
    }
  }

  async dispose(): Promise<void> {
    this.features.dispose();
    this.release();
  }
}
