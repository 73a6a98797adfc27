/**
 * What every embedder shares: the interface, MobileNetV2's sizes and L2 normalisation. The
 * implementations import this module, not vision/embedder.ts, which loads them on demand; so the
 * loader and the models never import each other.
 */
import type { VisualModel } from '../storage/entities/product-image-vector.entity';
import type { VisionConfig } from '../lib/config';
import type { PreparedImage } from './image';

/** What loading a model needs of the configuration (the runtime settings default as in lib/config.ts). */
export type EmbedderOptions = Pick<VisionConfig, 'clipModelDir'> & Partial<Pick<VisionConfig, 'mobilenetRuntime' | 'inferenceThreads'>>;

export interface Embedder {
  readonly model: VisualModel;
  readonly dimensions: number;
  /** Side of the square RGB input the model takes. */
  readonly inputSize: number;
  /** One vector per image, in order. */
  embedImages(images: PreparedImage[]): Promise<Float32Array[]>;
  /** Present when the model embeds text into the same space as images. */
  embedTexts?(texts: string[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export const MOBILENET_DIMENSIONS = 1280;
export const MOBILENET_INPUT = 224;

export function l2normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i += 1) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i += 1) vector[i] = vector[i]! / norm;
  return vector;
}
