/**
 * The embedders behind one interface, one instance per model and process (loaded on first use and
 * kept), and a micro-batcher so concurrent jobs share one inference call.
 *
 * - `mobilenet-v2` (default, offline everywhere): MobileNetV2 features (1280-d) from the weights
 *   bundled in nsfwjs, run by onnxruntime (or on the tfjs wasm backend: VISION_MOBILENET_RUNTIME).
 * - `clip`: CLIP image and text towers through @xenova/transformers from a local model folder
 *   (VISION_CLIP_MODEL_DIR); also embeds text, so shoppers' words can find product photos.
 * Every vector is L2-normalised, so a dot product is the cosine similarity.
 */
import type { VisualModel } from '../storage/entities/product-image-vector.entity';
import type { VisionConfig } from '../lib/config';
import type { PreparedImage } from './image';
import { MOBILENET_DIMENSIONS, type Embedder, type EmbedderOptions } from './embedding';

export { l2normalise, MOBILENET_DIMENSIONS, MOBILENET_INPUT, type Embedder, type EmbedderOptions } from './embedding';

/** Loads the model in the calling thread (the embedding thread uses this). */
export async function loadEmbedderHere(model: VisualModel, config: EmbedderOptions): Promise<Embedder> {
  if (model === 'clip') {
    if (!config.clipModelDir) throw new Error('VISION_CLIP_MODEL_DIR is not configured');
    const { ClipEmbedder } = await import('./clip-embedder.js');
    return ClipEmbedder.load(config.clipModelDir);
  }
  const { MobileNetEmbedder } = await import('./mobilenet-embedder.js');
  return MobileNetEmbedder.load(config.mobilenetRuntime ?? 'onnx', config.inferenceThreads ?? 1);
}

const loaded = new Map<string, Promise<Embedder>>();

/**
 * The process-wide embedder of `model`: the model runs in a worker thread of its own (inference on
 * the wasm/onnx backends is synchronous and would otherwise stall every request of the process for
 * the length of a batch); loaded once, and loaded again after a failed load or a crashed thread.
 */
export function getEmbedder(model: VisualModel, config: EmbedderOptions): Promise<Embedder> {
  const options: EmbedderOptions = {
    clipModelDir: config.clipModelDir,
    mobilenetRuntime: config.mobilenetRuntime ?? 'onnx',
    inferenceThreads: config.inferenceThreads ?? 1,
  };
  const key = model === 'clip' ? `clip:${config.clipModelDir ?? ''}` : `${model}:${options.mobilenetRuntime}:${options.inferenceThreads}`;
  let promise = loaded.get(key);
  if (!promise) {
    promise = (async () => {
      const { ThreadEmbedder } = await import('./thread-embedder.js');
      return ThreadEmbedder.start(model, options, key, () => loaded.delete(key));
    })();
    promise.catch(() => loaded.delete(key));
    loaded.set(key, promise);
  }
  return promise;
}

/** The vector length of `model` without loading it (CLIP: read from its config). */
export async function modelDimensions(model: VisualModel, config: Pick<VisionConfig, 'clipModelDir'>): Promise<number> {
  if (model === 'mobilenet-v2') return MOBILENET_DIMENSIONS;
  if (!config.clipModelDir) throw new Error('VISION_CLIP_MODEL_DIR is not configured');
  const { clipDimensions } = await import('./clip-embedder.js');
  return clipDimensions(config.clipModelDir);
}

/** Unloads every model of this process (tests, shutdown). */
export async function disposeEmbedders(): Promise<void> {
  const all = [...loaded.values()];
  loaded.clear();
  for (const promise of all) await promise.then((e) => e.dispose()).catch(() => undefined);
}

interface Waiting {
  image: PreparedImage;
  resolve: (vector: Float32Array) => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers images from concurrent callers into batches of at most `batchSize` and runs one inference
 * call at a time, so memory stays bounded by one batch of tensors however many callers wait. While a
 * call runs, what arrives waits for it (that wait is what gathers the next batch), and goes as soon as
 * it ends. With the model idle, an image waits up to `lingerMs` for company (a full batch goes at
 * once); with 0 it goes alone at once. The vision worker lingers 10 ms (its jobs come in bursts);
 * query by image does not (vision/query-embedding.ts). Both settings may be functions, read at each
 * decision, so a changed configuration applies without a new batcher.
 */
export class EmbeddingBatcher {
  private queue: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly batchSize: () => number;
  private readonly lingerMs: () => number;

  constructor(
    private readonly embedder: Embedder,
    batchSize: number | (() => number),
    lingerMs: number | (() => number) = 10,
  ) {
    this.batchSize = typeof batchSize === 'function' ? batchSize : () => batchSize;
    this.lingerMs = typeof lingerMs === 'function' ? lingerMs : () => lingerMs;
  }

  embed(image: PreparedImage): Promise<Float32Array> {
    return new Promise((resolve, reject) => {
      this.queue.push({ image, resolve, reject });
      this.schedule(false);
    });
  }

  private schedule(afterRun: boolean): void {
    if (this.running || this.queue.length === 0) return;
    const linger = this.lingerMs();
    // After a run the queued images have waited a whole inference already; a full batch goes too.
    if (afterRun || linger <= 0 || this.queue.length >= this.batchSize()) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      void this.run();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.run();
      }, linger);
    }
  }

  private async run(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    const batch = this.queue.splice(0, Math.max(1, this.batchSize()));
    try {
      const vectors = await this.embedder.embedImages(batch.map((w) => w.image));
      batch.forEach((w, i) => w.resolve(vectors[i]!));
    } catch (error) {
      batch.forEach((w) => w.reject(error));
    } finally {
      this.running = false;
      this.schedule(true);
    }
  }
}

const batchers = new Map<Embedder, EmbeddingBatcher>();

/** The shared batcher of an embedder. */
export function batcherFor(embedder: Embedder, batchSize: number): EmbeddingBatcher {
  let batcher = batchers.get(embedder);
  if (!batcher) {
    batcher = new EmbeddingBatcher(embedder, batchSize);
    batchers.set(embedder, batcher);
  }
  return batcher;
}
