/**
 * CLIP through @xenova/transformers, loaded only from a local folder (no model hub is contacted):
 * the image tower (`onnx/vision_model.onnx`, CLIPVisionModelWithProjection → image_embeds) and the
 * text tower with its tokenizer (`onnx/text_model.onnx`, CLIPTextModelWithProjection → text_embeds),
 * so text and images land in one space and a shopper's words can find product photos.
 * Folder layout (as exported for transformers.js): config.json (projection_dim), preprocessor_config.json
 * (image_mean, image_std), tokenizer.json, tokenizer_config.json, onnx/vision_model.onnx,
 * onnx/text_model.onnx. The image is resized by sharp (centre crop) and normalised here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { l2normalise, type Embedder } from './embedding';
import type { PreparedImage } from './image';

interface ClipFolder {
  dimensions: number;
  inputSize: number;
  mean: [number, number, number];
  std: [number, number, number];
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function describeFolder(dir: string): ClipFolder {
  const config = readJson(path.join(dir, 'config.json'));
  const dimensions = Number(config.projection_dim ?? (config.vision_config as Record<string, unknown> | undefined)?.projection_dim);
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`${dir}/config.json has no projection_dim`);
  let pre: Record<string, unknown> = {};
  try {
    pre = readJson(path.join(dir, 'preprocessor_config.json'));
  } catch {
    // CLIP defaults below
  }
  const crop = pre.crop_size as number | { height?: number } | undefined;
  const inputSize = Number(
    (typeof crop === 'object' ? crop?.height : crop) ?? (config.vision_config as Record<string, unknown> | undefined)?.image_size ?? 224,
  );
  const mean = (pre.image_mean as [number, number, number] | undefined) ?? [0.48145466, 0.4578275, 0.40821073];
  const std = (pre.image_std as [number, number, number] | undefined) ?? [0.26862954, 0.26130258, 0.27577711];
  return { dimensions, inputSize, mean, std };
}

/** projection_dim of the CLIP folder. */
export function clipDimensions(dir: string): number {
  return describeFolder(dir).dimensions;
}

type Transformers = typeof import('@xenova/transformers');
type AnyModel = {
  (inputs: Record<string, unknown>): Promise<Record<string, { data: Float32Array; dims: number[] }>>;
  dispose(): Promise<unknown>;
};

// A real dynamic import: the package is ESM only and this project compiles to CommonJS.
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Transformers>;

export class ClipEmbedder implements Embedder {
  readonly model = 'clip' as const;
  readonly dimensions: number;
  readonly inputSize: number;

  private constructor(
    private readonly folder: ClipFolder,
    private readonly lib: Transformers,
    private readonly vision: AnyModel,
    private readonly text: AnyModel | undefined,
    private readonly tokenizer: ((texts: string[], options: Record<string, unknown>) => Record<string, unknown>) | undefined,
  ) {
    this.dimensions = folder.dimensions;
    this.inputSize = folder.inputSize;
  }

  static async load(dir: string): Promise<ClipEmbedder> {
    const resolved = path.resolve(dir);
    const folder = describeFolder(resolved);
    const lib = await importEsm('@xenova/transformers');
    lib.env.allowRemoteModels = false;
    lib.env.allowLocalModels = true;
    lib.env.localModelPath = `${path.dirname(resolved)}${path.sep}`;
    const id = path.basename(resolved);
    // A fresh options object per model: from_pretrained writes its default file name into it.
    const options = () => ({ quantized: false, local_files_only: true });
    const vision = (await lib.CLIPVisionModelWithProjection.from_pretrained(id, options())) as unknown as AnyModel;
    let text: AnyModel | undefined;
    let tokenizer: ((texts: string[], options: Record<string, unknown>) => Record<string, unknown>) | undefined;
    if (fs.existsSync(path.join(resolved, 'onnx', 'text_model.onnx')) && fs.existsSync(path.join(resolved, 'tokenizer.json'))) {
      text = (await lib.CLIPTextModelWithProjection.from_pretrained(id, options())) as unknown as AnyModel;
      tokenizer = (await lib.AutoTokenizer.from_pretrained(id, { local_files_only: true })) as unknown as typeof tokenizer;
    }
    const embedder = new ClipEmbedder(folder, lib, vision, text, tokenizer);
    if (!text) delete (embedder as Partial<ClipEmbedder>).embedTexts;
    return embedder;
  }

  async embedImages(images: PreparedImage[]): Promise<Float32Array[]> {
    if (images.length === 0) return [];
    const size = this.inputSize;
    const plane = size * size;
    const { mean, std } = this.folder;
    const input = new Float32Array(images.length * 3 * plane);
    images.forEach((image, n) => {
      if (image.size !== size) throw new Error(`image prepared for ${image.size}px, the model takes ${size}px`);
      const base = n * 3 * plane;
      for (let p = 0; p < plane; p += 1) {
        for (let c = 0; c < 3; c += 1) input[base + c * plane + p] = (image.data[p * 3 + c]! / 255 - mean[c]!) / std[c]!;
      }
    });
    const pixelValues = new this.lib.Tensor('float32', input, [images.length, 3, size, size]);
    const output = await this.vision({ pixel_values: pixelValues });
    return this.rows(output.image_embeds, images.length);
  }

  async embedTexts(texts: string[]): Promise<Float32Array[]> {
    if (!this.text || !this.tokenizer) throw new Error('this CLIP folder has no text model');
    if (texts.length === 0) return [];
    const inputs = this.tokenizer(texts, { padding: true, truncation: true });
    const output = await this.text(inputs);
    return this.rows(output.text_embeds, texts.length);
  }

  private rows(tensor: { data: Float32Array; dims: number[] } | undefined, count: number): Float32Array[] {
    if (!tensor) throw new Error('the CLIP model returned no embeddings');
    const width = tensor.dims[tensor.dims.length - 1]!;
    if (width !== this.dimensions) throw new Error(`the CLIP model returned ${width}-d embeddings, config.json says ${this.dimensions}`);
    return Array.from({ length: count }, (_, n) => l2normalise(Float32Array.from(tensor.data.subarray(n * width, (n + 1) * width))));
  }

  async dispose(): Promise<void> {
    await this.vision.dispose().catch(() => undefined);
    await this.text?.dispose().catch(() => undefined);
  }
}
