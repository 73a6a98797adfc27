/** The embedding thread: loads one model (workerData) and answers embedding requests from its parent. */
import { parentPort, workerData } from 'node:worker_threads';
import type { VisualModel } from '../storage/entities/product-image-vector.entity';
import { loadEmbedderHere } from './embedder';
import type { PreparedImage } from './image';

interface Request {
  id: number;
  type: 'images' | 'texts';
  images?: Array<Omit<PreparedImage, 'data'> & { data: Uint8Array }>;
  texts?: string[];
}

async function main(): Promise<void> {
  const port = parentPort!;
  const { model, clipModelDir } = workerData as { model: VisualModel; clipModelDir?: string };
  const embedder = await loadEmbedderHere(model, { clipModelDir });
  // One request at a time: the model is not re-entrant, and the parent batches already.
  let queue = Promise.resolve();
  port.on('message', (request: Request) => {
    queue = queue.then(async () => {
      try {
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
  port.postMessage({
    type: 'ready',
    dimensions: embedder.dimensions,
    inputSize: embedder.inputSize,
    text: typeof embedder.embedTexts === 'function',
  });
}

main().catch((error: unknown) => {
  // The parent sees the exit; the message says why.
  process.stderr.write(`embedding thread failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
