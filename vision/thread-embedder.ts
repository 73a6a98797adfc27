/**
 * An embedder whose model lives in a worker thread (vision/embed-thread.ts): images and texts go
 * over, vectors come back (buffers transferred, not copied). One thread per model and process; a
 * crashed thread fails its pending calls and is replaced on the next getEmbedder().
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { VisualModel } from '../storage/entities/product-image-vector.entity';
import type { Embedder } from './embedding';
import type { PreparedImage } from './image';

interface Ready {
  type: 'ready';
  dimensions: number;
  inputSize: number;
  text: boolean;
}

interface Answer {
  type: 'result';
  id: number;
  vectors?: Float32Array[];
  error?: string;
}

export class ThreadEmbedder implements Embedder {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  embedTexts?: (texts: string[]) => Promise<Float32Array[]>;

  private constructor(
    readonly model: VisualModel,
    readonly dimensions: number,
    readonly inputSize: number,
    text: boolean,
    private readonly worker: Worker,
  ) {
    if (text) this.embedTexts = (texts) => this.call({ type: 'texts', texts }, []);
  }

  static start(model: VisualModel, clipModelDir: string | undefined, onGone: () => void): Promise<ThreadEmbedder> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(path.join(__dirname, 'embed-thread.js'), { workerData: { model, clipModelDir } });
      let embedder: ThreadEmbedder | undefined;
      const fail = (error: Error): void => {
        onGone();
        if (!embedder) return reject(error);
        for (const waiting of embedder.pending.values()) waiting.reject(error);
        embedder.pending.clear();
      };
      worker.on('message', (message: Ready | Answer) => {
        if (message.type === 'ready') {
          embedder = new ThreadEmbedder(model, message.dimensions, message.inputSize, message.text, worker);
          worker.unref();
          resolve(embedder);
          return;
        }
        const waiting = embedder?.pending.get(message.id);
        if (!waiting) return;
        embedder!.pending.delete(message.id);
        if (embedder!.pending.size === 0) worker.unref();
        if (message.error !== undefined) waiting.reject(new Error(message.error));
        else waiting.resolve(message.vectors!);
      });
      worker.on('error', (error) => fail(error));
      worker.on('exit', (code) => fail(new Error(`the ${model} embedding thread exited (code ${code})`)));
      // Referenced while loading and while calls are pending, never when idle: an idle model thread
      // must not keep the process alive (adding the listeners above referenced it).
      worker.ref();
    });
  }

  private call(message: Record<string, unknown>, transfer: ArrayBuffer[]): Promise<Float32Array[]> {
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  embedImages(images: PreparedImage[]): Promise<Float32Array[]> {
    if (images.length === 0) return Promise.resolve([]);
    const copies = images.map((image) => ({
      data: new Uint8Array(image.data),
      size: image.size,
      width: image.width,
      height: image.height,
      format: image.format,
    }));
    return this.call(
      { type: 'images', images: copies },
      copies.map((c) => c.data.buffer as ArrayBuffer),
    );
  }

  async dispose(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
