/**
 * MobileNetV2 image features from the weights bundled in nsfwjs (no download, works offline): the
 * 1280-d output of the `flatten_1` layer (global average pooling of the last convolution block),
 * L2-normalised. Input: 224×224 RGB scaled to [0, 1], as nsfwjs trains it.
 *
 * Two runtimes compute the same vectors (within 1e-5):
 * - `onnx` (default): the model is rewritten as an ONNX graph when it loads (vision/mobilenet-onnx.ts)
 *   and run by onnxruntime's native CPU kernels, about 5 ms an image on one core;
 * - `tfjs`: the tfjs wasm backend (SIMD, single-threaded: tfjs has no wasm threads in Node), 55–75 ms
 *   an image; kept selectable (VISION_MOBILENET_RUNTIME) and used when onnxruntime cannot load on
 *   the platform.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { MobileNetV2Model } from 'nsfwjs/models/mobilenet_v2';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { PROJECT_ROOT } from '../lib/config';
import { l2normalise, MOBILENET_DIMENSIONS, MOBILENET_INPUT, type Embedder } from './embedding';
import type { PreparedImage } from './image';
import { mobileNetToOnnx, ONNX_INPUT, ONNX_OUTPUT } from './mobilenet-onnx';

export type MobileNetRuntime = 'onnx' | 'tfjs';

const FEATURES_LAYER = 'flatten_1';

let wasmReady: Promise<void> | undefined;

async function wasmBackend(): Promise<void> {
  wasmReady ??= (async () => {
    setWasmPaths(`${path.join(PROJECT_ROOT, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist')}${path.sep}`);
    if (!(await tf.setBackend('wasm'))) throw new Error('the tfjs wasm backend could not start');
    await tf.ready();
  })();
  return wasmReady;
}

/**
 * The base64 weights of nsfwjs's bundle file `index`, read as text. The file is a script holding one
 * long string; require()-ing it, as nsfwjs does, compiles 3.5 MB of source: seconds, and some 600 MB
 * of garbage left in the model thread's heap (and the process's RSS) until a collection happens to
 * run. Another layout than that of the pinned nsfwjs falls back to require().
 */
async function bundledWeights(index: number, count: number): Promise<string> {
  try {
    const models = path.join(path.dirname(require.resolve('nsfwjs/models/mobilenet_v2')), '..', '..', 'models', 'mobilenet_v2');
    const text = await readFile(path.join(models, `group1-shard${index + 1}of${count}.min.js`), 'latin1');
    const base64 = /"([A-Za-z0-9+/]{1024,}={0,2})"/.exec(text)?.[1];
    if (base64) return base64;
  } catch {
    // fall back to the module
  }
  return (await MobileNetV2Model.weightBundles[index]!()).default;
}

/**
 * The bundled model (nsfwjs's classifier head included), loaded on the wasm backend, or on tfjs's
 * plain JS backend when `onCpu` and this thread has not started wasm. Read from nsfwjs's bundle
 * directly rather than through its load(): that one decodes the weights a character at a time and
 * runs a prediction to warm up (seconds on the JS backend), and the embedding thread warms the
 * model up itself.
 */
async function loadBundled(onCpu: boolean): Promise<tf.LayersModel> {
  // tfjs's JS backend recommends tfjs-node on the console; keep the process's logs to pino.
  /* eslint-disable no-console */
  const { warn } = console;
  console.warn = () => undefined;
  try {
    if (onCpu && !wasmReady) await tf.setBackend('cpu');
    else await wasmBackend();
    const json = (await MobileNetV2Model.modelJson()).default;
    const bundles = await Promise.all(MobileNetV2Model.weightBundles.map((_, i, all) => bundledWeights(i, all.length)));
    const groups = json.weightsManifest ?? [];
    const paths = groups.flatMap((group) => group.paths);
    // nsfwjs numbers its bundles in the manifest's order (group1-shard1ofN, …).
    if (paths.length !== bundles.length)
      throw new Error(`the bundled MobileNetV2 has ${bundles.length} weight files for ${paths.length} paths`);
    const weightData = Buffer.concat(bundles.map((base64) => Buffer.from(base64, 'base64')));
    return await tf.loadLayersModel(
      tf.io.fromMemory({
        modelTopology: json.modelTopology,
        weightSpecs: groups.flatMap((group) => group.weights),
        weightData: weightData.buffer.slice(weightData.byteOffset, weightData.byteOffset + weightData.byteLength),
      }),
    );
  } finally {
    console.warn = warn;
  }
  /* eslint-enable no-console */
}

type Runner = (input: PreparedImage[]) => Promise<Float32Array>;
type Ort = typeof import('onnxruntime-node');

export class MobileNetEmbedder implements Embedder {
  readonly model = 'mobilenet-v2' as const;
  readonly dimensions = MOBILENET_DIMENSIONS;
  readonly inputSize = MOBILENET_INPUT;

  private constructor(
    /** The runtime actually in use (`onnx` falls back to `tfjs` where onnxruntime cannot load). */
    readonly runtime: MobileNetRuntime,
    private readonly run: Runner,
    private readonly release: () => Promise<void>,
  ) {}

  /** `threads`: onnxruntime's intra-op threads (the tfjs wasm backend has one thread in Node). */
  static async load(runtime: MobileNetRuntime = 'onnx', threads = 1): Promise<MobileNetEmbedder> {
    if (runtime === 'onnx') {
      // A native addon: a platform without its binary falls back to tfjs. Imported from CommonJS,
      // its exports arrive as the namespace's default.
      const ort = await import('onnxruntime-node').then(
        (m) => (m as unknown as { default?: Ort }).default ?? (m as unknown as Ort),
        () => undefined,
      );
      if (ort?.InferenceSession) return MobileNetEmbedder.loadOnnx(ort, threads);
    }
    return MobileNetEmbedder.loadTfjs();
  }

  private static async loadOnnx(ort: Ort, threads: number): Promise<MobileNetEmbedder> {
    // The weights only pass through tfjs on their way to ONNX: the plain JS backend reads them
    // without starting wasm (whose heap would stay grown), unless this thread runs wasm already.
    const bundled = await loadBundled(true);
    let bytes: Uint8Array;
    try {
      bytes = mobileNetToOnnx(bundled, FEATURES_LAYER, MOBILENET_INPUT);
    } finally {
      bundled.dispose();
    }
    let session: InferenceSession | undefined = await ort.InferenceSession.create(bytes, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    const size = MOBILENET_INPUT;
    const plane = size * size;
    const run: Runner = async (images) => {
      // NCHW, scaled to [0, 1]. A fresh buffer per call: onnxruntime reads it on a later tick, when
      // another call may already be filling its own.
      const input = new Float32Array(images.length * 3 * plane);
      images.forEach((image, n) => {
        const data = image.data;
        const r = n * 3 * plane;
        for (let p = 0, q = 0; p < plane; p += 1, q += 3) {
          input[r + p] = data[q]! / 255;
          input[r + plane + p] = data[q + 1]! / 255;
          input[r + 2 * plane + p] = data[q + 2]! / 255;
        }
      });
      if (!session) throw new Error('the mobilenet-v2 model was disposed');
      const output = await session.run({ [ONNX_INPUT]: new ort.Tensor('float32', input, [images.length, 3, size, size]) });
      return (output[ONNX_OUTPUT] as Tensor).data as Float32Array;
    };
    // onnxruntime-node 1.14 frees a session when it is collected; dropping it is the release.
    return new MobileNetEmbedder('onnx', run, async () => {
      session = undefined;
    });
  }

  private static async loadTfjs(): Promise<MobileNetEmbedder> {
    const bundled = await loadBundled(false);
    const layer = bundled.layers.find((l) => l.name === FEATURES_LAYER);
    if (!layer) {
      bundled.dispose();
      throw new Error(`the bundled MobileNetV2 has no ${FEATURES_LAYER} layer`);
    }
    const features = tf.model({ inputs: bundled.inputs, outputs: layer.output as tf.SymbolicTensor });
    const size = MOBILENET_INPUT;
    const pixels = size * size * 3;
    const run: Runner = async (images) => {
      const input = new Float32Array(images.length * pixels);
      images.forEach((image, n) => {
        const offset = n * pixels;
        for (let i = 0; i < pixels; i += 1) input[offset + i] = image.data[i]! / 255;
      });
      const x = tf.tensor4d(input, [images.length, size, size, 3]);
      let y: tf.Tensor | undefined;
      try {
        y = features.predict(x) as tf.Tensor;
        return (await y.data()) as Float32Array;
      } finally {
        x.dispose();
        y?.dispose();
      }
    };
    return new MobileNetEmbedder('tfjs', run, async () => {
      // The features model shares its layers with the whole one: the first dispose frees the shared
      // ones and the second, freeing the classifier head, finds them gone and says so.
      features.dispose();
      try {
        bundled.dispose();
      } catch {
        // already disposed
      }
    });
  }

  async embedImages(images: PreparedImage[]): Promise<Float32Array[]> {
    if (images.length === 0) return [];
    for (const image of images)
      if (image.size !== this.inputSize) throw new Error(`image prepared for ${image.size}px, the model takes ${this.inputSize}px`);
    const flat = await this.run(images);
    return images.map((_, n) => l2normalise(flat.slice(n * this.dimensions, (n + 1) * this.dimensions)));
  }

  async dispose(): Promise<void> {
    await this.release();
  }
}
