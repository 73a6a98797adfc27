/**
 * The vector of a shopper's query image, as cheaply as it can be had:
 *
 * - **Cache.** Vectors are kept by the SHA-256 of the uploaded bytes and the model (an LRU of
 *   VISION_QUERY_CACHE_SIZE entries per process, about 5 KB each for mobilenet-v2), so the same photo
 *   uploaded again — a shopper retrying, paging, changing a filter — is neither decoded nor embedded.
 *   A hit still honours the current pixel limit (the entry keeps the image's dimensions).
 * - **In-flight sharing.** Identical uploads that arrive while the first is still being embedded
 *   wait for that one embedding instead of starting their own (also with the cache off).
 * - **Batching.** Query images that arrive while the model is busy are embedded together, as one
 *   inference call of at most VISION_QUERY_BATCH_SIZE images, as soon as the running call ends. An
 *   idle model starts at once, or after VISION_QUERY_BATCH_LINGER_MS when that is set, so a lone
 *   query pays no waiting.
 *
 * The bytes are sniffed, checked and decoded by sharp straight to the model's input (vision/image.ts)
 * before anything else; errors are the ImageErrors of prepareImage.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { VisionConfig } from '../lib/config';
import type { Embedder } from './embedding';
import { EmbeddingBatcher } from './embedder';
import { ImageError, prepareImage, type ImageFormat } from './image';

/** The settings read on every call (so a changed configuration applies at once). */
export type QueryEmbeddingSettings = Pick<VisionConfig, 'maxPixels' | 'queryCacheSize' | 'queryBatchSize' | 'queryBatchLingerMs'>;

export interface QueryEmbedding {
  /** L2-normalised; shared with the cache and other callers, so never to be modified. */
  vector: Float32Array;
  /** `cache`: kept from an earlier query; `shared`: embedded once for identical concurrent uploads; `embedded`: for this call. */
  source: 'cache' | 'shared' | 'embedded';
  /** Decoding and resizing (0 when none happened for this call). */
  decodeMs: number;
  /** Waiting for and running the inference (or for the identical upload's). */
  embedMs: number;
}

interface Known {
  vector: Float32Array;
  width: number;
  height: number;
  format: ImageFormat;
}

/** A map that forgets its least recently used entries beyond `capacity()`. */
class Lru<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: () => number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.trim();
  }

  trim(): void {
    const capacity = this.capacity();
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= capacity) break;
      this.entries.delete(oldest);
    }
  }
}

export class QueryImageEmbedder {
  private readonly cache: Lru<string, Known>;
  private readonly inFlight = new Map<string, Promise<Known>>();
  private readonly batcher: EmbeddingBatcher;

  constructor(
    readonly embedder: Embedder,
    /** Replaced by queryEmbedderFor with the caller's configuration. */
    public settings: QueryEmbeddingSettings,
  ) {
    this.cache = new Lru(() => this.settings.queryCacheSize);
    this.batcher = new EmbeddingBatcher(
      embedder,
      () => this.settings.queryBatchSize,
      () => this.settings.queryBatchLingerMs,
    );
  }

  /** Vectors kept now. */
  get cached(): number {
    return this.cache.size;
  }

  /** The vector of the image in `bytes`. Throws ImageError for what is not a usable image. */
  async embed(bytes: Buffer): Promise<QueryEmbedding> {
    const key = `${this.embedder.model}:${this.embedder.inputSize}:${createHash('sha256').update(bytes).digest('base64')}`;
    const kept = this.settings.queryCacheSize > 0 ? this.cache.get(key) : undefined;
    if (kept) return { vector: this.withinLimit(kept).vector, source: 'cache', decodeMs: 0, embedMs: 0 };
    const running = this.inFlight.get(key);
    if (running) {
      const started = performance.now();
      const known = this.withinLimit(await running);
      return { vector: known.vector, source: 'shared', decodeMs: 0, embedMs: performance.now() - started };
    }
    const timings = { decodeMs: 0, embedMs: 0 };
    const work = (async (): Promise<Known> => {
      let started = performance.now();
      const image = await prepareImage(bytes, { size: this.embedder.inputSize, maxPixels: this.settings.maxPixels });
      timings.decodeMs = performance.now() - started;
      started = performance.now();
      const vector = await this.batcher.embed(image);
      timings.embedMs = performance.now() - started;
      return { vector, width: image.width, height: image.height, format: image.format };
    })();
    this.inFlight.set(key, work);
    try {
      const known = await work;
      if (this.settings.queryCacheSize > 0) this.cache.set(key, known);
      return { vector: known.vector, source: 'embedded', ...timings };
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** A known image is refused as it would be decoded anew when the pixel limit fell since. */
  private withinLimit(known: Known): Known {
    const { width, height } = known;
    if (width * height > this.settings.maxPixels)
      throw new ImageError(
        'too_many_pixels',
        `The image has ${width}×${height} pixels, more than the limit of ${this.settings.maxPixels}.`,
      );
    return known;
  }
}

const perEmbedder = new WeakMap<Embedder, QueryImageEmbedder>();

/**
 * The process's query embedder for `embedder` (its cache lives as long as the model does: a
 * replaced model thread starts with an empty one), reading `settings` from now on.
 */
export function queryEmbedderFor(embedder: Embedder, settings: QueryEmbeddingSettings): QueryImageEmbedder {
  let query = perEmbedder.get(embedder);
  if (!query) {
    query = new QueryImageEmbedder(embedder, settings);
    perEmbedder.set(embedder, query);
  }
  query.settings = settings;
  return query;
}
