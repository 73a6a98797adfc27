/**
 * Writes a tiny CLIP-layout model folder for tests (real CLIP weights drop into the same layout):
 * config.json, preprocessor_config.json, tokenizer.json, tokenizer_config.json, and two ONNX graphs
 * built with onnx-proto:
 * - onnx/vision_model.onnx: pixel_values [N, 3, S, S] → mean colour per channel → × W (3 × D) → image_embeds [N, D]
 * - onnx/text_model.onnx: input_ids [N, L] → mean token id → × W (1 × D) + b → text_embeds [N, D]
 * So two images of similar colour get similar vectors, and different words different vectors.
 */
import fs from 'node:fs';
import path from 'node:path';
import { onnx } from 'onnx-proto';

const FLOAT = 1;
const INT64 = 7;

function tensor(name: string, dims: number[], values: number[]): onnx.ITensorProto {
  return { name, dims, dataType: FLOAT, floatData: values };
}

function valueInfo(name: string, elemType: number, dims: Array<number | string>): onnx.IValueInfoProto {
  return {
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
  };
}

function model(graph: onnx.IGraphProto): Buffer {
  const proto = onnx.ModelProto.create({ irVersion: 7, opsetImport: [{ domain: '', version: 13 }], producerName: 'commerce-tests', graph });
  return Buffer.from(onnx.ModelProto.encode(proto).finish());
}

export interface TinyClip {
  dir: string;
  dimensions: number;
  inputSize: number;
}

export function writeTinyClip(root: string, name = 'tiny-clip', dimensions = 8, inputSize = 32): TinyClip {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  // Channel weights: each output dimension mixes the three channel means differently.
  const w: number[] = [];
  for (let c = 0; c < 3; c += 1) for (let d = 0; d < dimensions; d += 1) w.push(Math.sin((c + 1) * (d + 1)) + (c === d % 3 ? 1 : 0));
  const vision = model({
    name: 'vision',
    node: [
      {
        opType: 'ReduceMean',
        input: ['pixel_values'],
        output: ['means'],
        attribute: [
          { name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [2, 3] },
          { name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 },
        ],
      },
      { opType: 'MatMul', input: ['means', 'W'], output: ['image_embeds'] },
    ],
    initializer: [tensor('W', [3, dimensions], w)],
    input: [valueInfo('pixel_values', FLOAT, ['batch', 3, inputSize, inputSize])],
    output: [valueInfo('image_embeds', FLOAT, ['batch', dimensions])],
  });
  const text = model({
    name: 'text',
    node: [
      {
        opType: 'Cast',
        input: ['input_ids'],
        output: ['ids'],
        attribute: [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: FLOAT }],
      },
      {
        opType: 'ReduceMean',
        input: ['ids'],
        output: ['mean'],
        attribute: [
          { name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [1] },
          { name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 1 },
        ],
      },
      { opType: 'MatMul', input: ['mean', 'T'], output: ['scaled'] },
      { opType: 'Add', input: ['scaled', 'B'], output: ['text_embeds'] },
    ],
    initializer: [
      tensor(
        'T',
        [1, dimensions],
        Array.from({ length: dimensions }, (_, d) => Math.cos(d + 1)),
      ),
      tensor(
        'B',
        [dimensions],
        Array.from({ length: dimensions }, (_, d) => (d % 2 ? 0.5 : -0.5)),
      ),
    ],
    input: [valueInfo('input_ids', INT64, ['batch', 'sequence'])],
    output: [valueInfo('text_embeds', FLOAT, ['batch', dimensions])],
  });
  fs.writeFileSync(path.join(dir, 'onnx', 'vision_model.onnx'), vision);
  fs.writeFileSync(path.join(dir, 'onnx', 'text_model.onnx'), text);
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'clip',
      projection_dim: dimensions,
      vision_config: { image_size: inputSize, projection_dim: dimensions },
      text_config: { projection_dim: dimensions },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'preprocessor_config.json'),
    JSON.stringify({ crop_size: inputSize, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] }),
  );
  const words = ['[UNK]', '[PAD]', 'red', 'blue', 'green', 'yellow', 'hat', 'shoe', 'shirt', 'bag'];
  fs.writeFileSync(
    path.join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [
        { id: 0, content: '[UNK]', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
        { id: 1, content: '[PAD]', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
      ],
      normalizer: { type: 'Lowercase' },
      pre_tokenizer: { type: 'Whitespace' },
      post_processor: null,
      decoder: null,
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(words.map((word, i) => [word, i])),
      },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'CLIPTokenizer', pad_token: '[PAD]', unk_token: '[UNK]', model_max_length: 16, do_lower_case: true }),
  );
  return { dir, dimensions, inputSize };
}
