/**
 * An embedder whose model lives in a worker thread (vision/embed-thread.ts): images and texts go
 * over, vectors come back (buffers transferred, not copied). One thread per model and process; a
 * crashed thread fails its pending calls and is replaced on the next getEmbedder().
 *
 * A model thread is never ended, only parked: dispose() releases its model and keeps the idle
 * thread (unreferenced, so it holds no process open), and the next start() of the same model takes
 * it back. onnxruntime-node's addon (the default mobilenet-v2 runtime, and CLIP) is not
 * context-aware: once a thread that loaded it has ended while another still runs it, a thread that
 * loads it again fails ("Module did not self-register") and the process may crash, then or at
 * exit. Threads that all live as long as the process are safe.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { VisualModel } from '../storage/entities/product-image-vector.entity';
import type { Embedder, EmbedderOptions } from './embedding';
import type { PreparedImage } from './image';

interface Ready {
  type: 'ready';
  dimensions: number;
  inputSize: number;
  text: boolean;
  runtime?: string;
}

interface Failed {
  type: 'failed';
  error: string;
}

interface Answer {
  type: 'result';
  id: number;
  vectors?: Float32Array[];
  error?: string;
}

/** Idle threads by model key, their model released (or never loaded), waiting to be taken back. */
const parked = new Map<string, Worker>();
/** Threads that have ended (crashed): never parked. */
const ended = new WeakSet<Worker>();

/** Unreferenced and listened to only for its end, until start() takes it back. */
function park(key: string, worker: Worker): void {
  worker.removeAllListeners('message');
  worker.removeAllListeners('error');
  worker.removeAllListeners('exit');
  if (ended.has(worker)) return;
  worker.on('error', () => undefined);
  worker.once('exit', () => {
    ended.add(worker);
    if (parked.get(key) === worker) parked.delete(key);
  });
  worker.unref();
  parked.set(key, worker);
}

export class ThreadEmbedder implements Embedder {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  private disposed = false;
  embedTexts?: (texts: string[]) => Promise<Float32Array[]>;

  private constructor(
    readonly model: VisualModel,
    readonly dimensions: number,
    readonly inputSize: number,
    text: boolean,
    private readonly worker: Worker,
    private readonly key: string,
    /** Where the model runs, when the model says (mobilenet-v2: `onnx` or `tfjs`). */
    readonly runtime?: string,
  ) {
    if (text) this.embedTexts = (texts) => this.call({ type: 'texts', texts }, []);
  }

  /** The model `key` (getEmbedder's) in its thread: the parked one when there is one, else a new one. */
  static start(model: VisualModel, options: EmbedderOptions, key: string, onGone: () => void): Promise<ThreadEmbedder> {
    return new Promise((resolve, reject) => {
      const idle = parked.get(key);
      parked.delete(key);
      const worker = idle ?? new Worker(path.join(__dirname, 'embed-thread.js'), { workerData: { model, options } });
      let embedder: ThreadEmbedder | undefined;
      const fail = (error: Error): void => {
        onGone();
        if (!embedder) return reject(error);
        for (const waiting of embedder.pending.values()) waiting.reject(error);
        embedder.pending.clear();
      };
      worker.on('message', (message: Ready | Failed | Answer) => {
        if (message.type === 'ready') {
          embedder = new ThreadEmbedder(model, message.dimensions, message.inputSize, message.text, worker, key, message.runtime);
          worker.unref();
          resolve(embedder);
          return;
        }
        if (message.type === 'failed') {
          // The thread stays for the next try (a load that failed may have loaded onnxruntime).
          park(key, worker);
          onGone();
          reject(new Error(message.error));
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
      worker.on('exit', (code) => {
        ended.add(worker);
        fail(new Error(`the ${model} embedding thread exited (code ${code})`));
      });
      // Referenced while loading and while calls are pending, never when idle: an idle model thread
      // must not keep the process alive (adding the listeners above referenced it).
      worker.ref();
      if (idle) worker.postMessage({ type: 'load', id: 0 });
    });
  }

  private call(message: Record<string, unknown>, transfer: ArrayBuffer[]): Promise<Float32Array[]> {
    if (this.disposed) return Promise.reject(new Error(`the ${this.model} model was disposed`));
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

  /** Releases the model (after the calls already sent) and parks its thread. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    await this.call({ type: 'unload' }, []).catch(() => undefined);
    this.disposed = true;
    park(this.key, this.worker);
  }
}
