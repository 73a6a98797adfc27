/**
 * The embedding thread: loads one model (workerData) and answers embedding requests from its parent.
 * `unload` releases the model and keeps the thread; `load` loads it again: vision/thread-embedder.ts
 * parks threads instead of ending them, and a thread never ends itself, not even when its model
 * fails to load (it says so and waits for the next `load`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { VisualModel } from '../storage/entities/product-image-vector.entity';
import { loadEmbedderHere, type Embedder, type EmbedderOptions } from './embedder';
import type { PreparedImage } from './image';

interface Request {
  id: number;
  type: 'images' | 'texts' | 'load' | 'unload';
  images?: Array<Omit<PreparedImage, 'data'> & { data: Uint8Array }>;
  texts?: string[];
}

const port = parentPort!;
const { model, options } = workerData as { model: VisualModel; options: EmbedderOptions };

/** Loads the model and tells the parent; a failure is told too, and the thread stays. */
async function load(): Promise<Embedder | undefined> {
  try {
    const embedder = await loadEmbedderHere(model, options);
    // One inference before taking requests: the runtime sizes its buffers and kernels on the first
    // run (several times a normal one), which should not fall on a shopper's query.
    const side = embedder.inputSize;
    await embedder.embedImages([{ data: Buffer.alloc(side * side * 3, 255), size: side, width: side, height: side, format: 'png' }]);
    announce(embedder);
    return embedder;
  } catch (error) {
    port.postMessage({ type: 'failed', error: (error as Error).message ?? String(error) });
    return undefined;
  }
}

function announce(embedder: Embedder): void {
  port.postMessage({
    type: 'ready',
    dimensions: embedder.dimensions,
    inputSize: embedder.inputSize,
    text: typeof embedder.embedTexts === 'function',
    runtime: (embedder as { runtime?: string }).runtime,
  });
}

let embedder: Embedder | undefined;
// One request at a time: the model is not re-entrant, and the parent batches already.
let queue = load().then((loaded) => {
  embedder = loaded;
});
port.on('message', (request: Request) => {
  queue = queue.then(async () => {
    if (request.type === 'load') {
      if (embedder) announce(embedder);
      else embedder = await load();
      return;
    }
    try {
      if (request.type === 'unload') {
        const unloading = embedder;
        embedder = undefined;
        await unloading?.dispose();
        port.postMessage({ type: 'result', id: request.id, vectors: [] });
        return;
      }
      if (!embedder) throw new Error(`the ${model} model is not loaded`);
      const vectors =
        request.type === 'texts'
          ? await embedder.embedTexts!(request.texts ?? [])
          : await embedder.embedImages(
              (request.images ?? []).map((i) => ({ ...i, data: Buffer.from(i.data.buffer, i.data.byteOffset, i.data.byteLength) })),
            );
      port.postMessage(
        { type: 'result', id: request.id, vectors },
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (error) {
      port.postMessage({ type: 'result', id: request.id, error: (error as Error).message ?? String(error) });
    }
  });
});
