/**
 * `npm run bench:vision-quality -- --images <dir> --labels <csv> [--embedder mobilenet-v2,…]`: the
 * visual relevance benchmark (docs/benchmarks.md, "Visual relevance").
 *
 * 1. Reads a folder of product photos and a label file (CSV: file,category[,subcategory]; the photos
 *    never live in the repository: `npm run bench:vision-photos` rebuilds the reference set).
 * 2. Makes five altered copies of every photo with sharp, the same bytes for every embedder and run:
 *    a crop, a mirror image, a darker copy, a recompressed JPEG and a slight rotation.
 * 3. For each embedder asked, in turn, loaded as the product loads it (vision/embedder.ts getEmbedder:
 *    the model in its own thread, the configured runtime; a candidate of vision-candidates.ts in this
 *    thread) and unloaded after: embeds every photo one at a time (latency per
 *    embedding, decoding apart, process RSS with the model), then every altered copy, and measures
 *    - where each altered copy ranks its original among all photos: recall@1, recall@5, MRR (overall
 *      and per alteration);
 *    - the share of each photo's k nearest other photos (k = 5) with its category and subcategory,
 *      overall and per label, beside the share a ranking that ignores the images would reach;
 *    - the same share when neighbours of the same category come first (the catalog-aware ranking of
 *      the similar-products reads), when the labels have subcategories;
 *    - the scores: what an altered copy scores against its original, what the best other photo scores.
 * Prints one JSON object per line (stdout), the last one a summary with the embedders side by side;
 * progress goes to stderr. Options: --images, --labels, --embedder (comma-separated: mobilenet-v2,
 * the default; clip; inception-v3, a candidate), --clip-dir (else VISION_CLIP_MODEL_DIR), --neighbours k.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig, type VisionConfig } from '../../lib/config';
import type { VisualModel } from '../../storage/entities/product-image-vector.entity';
import { disposeEmbedders, getEmbedder } from '../../vision/embedder';
import { prepareImage } from '../../vision/image';
import { emit, log, parseFlags, round } from './common';
import { ALTERATIONS } from './vision-alterations';
import { CANDIDATES, loadCandidate, type BenchEmbedder, type Candidate } from './vision-candidates';
import {
  chanceShare,
  dot,
  nearestNeighbours,
  nearestNeighboursByTiers,
  nearestNeighboursGroupFirst,
  parsePhotoLabels,
  percentileOf,
  rankOf,
  retrievalFigures,
  sameLabelShare,
  type LabelledPhoto,
  type LabelShare,
  type RetrievalFigures,
} from './vision-quality-metrics';

/** The product's models (a store's visual-search setting), then candidates stores cannot choose (vision-candidates.ts). */
const PRODUCT_EMBEDDERS = ['mobilenet-v2', 'clip'] as const satisfies readonly VisualModel[];
const EMBEDDERS: readonly string[] = [...PRODUCT_EMBEDDERS, ...CANDIDATES];
type EmbedderName = VisualModel | Candidate;
const KNOWN = ['images', 'labels', 'embedder', 'clip-dir', 'neighbours'];
const USAGE =
  'usage: npm run bench:vision-quality -- --images <dir> --labels <csv> [--embedder mobilenet-v2[,clip][,inception-v3]] [--clip-dir <dir>] [--neighbours 5]';

/** A mistake in the command line or the inputs: printed as its message alone, exit status 2. */
class UsageError extends Error {}

interface Options {
  images: string;
  labels: string;
  embedders: EmbedderName[];
  clipDir?: string;
  neighbours: number;
}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  let flags: Map<string, string>;
  try {
    flags = parseFlags(argv, []);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const name of flags.keys())
    if (!KNOWN.includes(name)) throw new UsageError(`unknown option --${name} (known: ${KNOWN.map((k) => `--${k}`).join(' ')})`);
  const images = flags.get('images');
  const labels = flags.get('labels');
  if (!images || !labels) throw new UsageError('give the photos and their labels: --images <dir> --labels <csv>');
  if (!fs.statSync(images, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--images ${images}: no such folder`);
  if (!fs.statSync(labels, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`--labels ${labels}: no such file`);
  const embedders = (flags.get('embedder') ?? 'mobilenet-v2').split(',').map((name) => name.trim());
  for (const name of embedders)
    if (!EMBEDDERS.includes(name)) throw new UsageError(`--embedder ${name}: unknown (known: ${EMBEDDERS.join(', ')})`);
  const clipDir = flags.get('clip-dir') ?? env.VISION_CLIP_MODEL_DIR;
  if (embedders.includes('clip') && !clipDir)
    throw new UsageError('--embedder clip needs a CLIP model folder: --clip-dir <dir> (or VISION_CLIP_MODEL_DIR)');
  const neighbours = Number(flags.get('neighbours') ?? 5);
  if (!Number.isInteger(neighbours) || neighbours < 1)
    throw new UsageError(`--neighbours must be a whole number ≥ 1, got ${flags.get('neighbours')}`);
  return { images, labels, embedders: [...new Set(embedders)] as EmbedderName[], clipDir, neighbours };
}

// ---- one embedder -------------------------------------------------------------------------------

interface Photo extends LabelledPhoto {
  bytes: Buffer;
}

interface Altered {
  /** Index of the original photo. */
  original: number;
  alteration: string;
  bytes: Buffer;
}

interface EmbedderFigures {
  embedder: EmbedderName;
  /** Whether stores can choose it (else a candidate, vision-candidates.ts). */
  product: boolean;
  /** Where the model ran, when it says (mobilenet-v2: onnx or tfjs). */
  runtime?: string;
  dimensions: number;
  altered: RetrievalFigures & { perAlteration: Record<string, RetrievalFigures> };
  neighbours: { k: number; sameCategory: LabelShare; sameSubcategory?: LabelShare };
  categoryFirst?: { sameSubcategory: LabelShare };
  /** The similar products read's `sameCategory: prefer` tiers: the same subcategory, then the same category, then the rest. */
  catalogTiers?: { sameSubcategory: LabelShare; sameCategory: LabelShare };
  scores: Record<string, { p5: number; p50: number; p95: number }>;
  latency: { loadMs: number; decodeMs: Stats; embedMs: Stats };
  rssMb: { before: number; withModel: number; model: number };
}

interface Stats {
  p50: number;
  p95: number;
  mean: number;
}

function stats(values: number[]): Stats {
  return {
    p50: round(percentileOf(values, 50), 1),
    p95: round(percentileOf(values, 95), 1),
    mean: round(values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length), 1),
  };
}

const spread = (values: number[]) => ({
  p5: round(percentileOf(values, 5), 3),
  p50: round(percentileOf(values, 50), 3),
  p95: round(percentileOf(values, 95), 3),
});

const mb = (bytes: number): number => round(bytes / 1024 / 1024, 0);

function roundShare(share: LabelShare): LabelShare {
  return {
    overall: round(share.overall, 3),
    perLabel: Object.fromEntries(Object.entries(share.perLabel).map(([label, value]) => [label, round(value, 3)])),
  };
}

function roundRetrieval(figures: RetrievalFigures): RetrievalFigures {
  return {
    queries: figures.queries,
    recallAt1: round(figures.recallAt1, 3),
    recallAt5: round(figures.recallAt5, 3),
    mrr: round(figures.mrr, 3),
  };
}

/**
 * The embedder as the product loads it (getEmbedder: the model in its own thread, the configured
 * runtime), or a candidate in this thread; and how to unload it.
 */
async function loadForBench(
  name: EmbedderName,
  vision: VisionConfig,
): Promise<{ embedder: BenchEmbedder & { runtime?: string }; unload: () => Promise<void> }> {
  if ((PRODUCT_EMBEDDERS as readonly string[]).includes(name))
    return { embedder: await getEmbedder(name as VisualModel, vision), unload: disposeEmbedders };
  const embedder = await loadCandidate(name as Candidate);
  return { embedder, unload: () => embedder.dispose() };
}

async function measure(
  model: EmbedderName,
  vision: VisionConfig,
  photos: Photo[],
  altered: Altered[],
  k: number,
): Promise<EmbedderFigures> {
  const rssBefore = process.memoryUsage().rss;
  let started = performance.now();
  const { embedder, unload } = await loadForBench(model, vision);
  const loadMs = performance.now() - started;
  const prepare = (bytes: Buffer) => prepareImage(bytes, { size: embedder.inputSize, maxPixels: vision.maxPixels });

  // The photos one at a time: what a query or one product image costs.
  const decodeMs: number[] = [];
  const embedMs: number[] = [];
  const vectors: Float32Array[] = [];
  await embedder.embedImages([await prepare(photos[0]!.bytes)]); // warm-up
  for (const photo of photos) {
    started = performance.now();
    const image = await prepare(photo.bytes);
    const decoded = performance.now();
    const [vector] = await embedder.embedImages([image]);
    embedMs.push(performance.now() - decoded);
    decodeMs.push(decoded - started);
    vectors.push(vector!);
  }
  const rssWithModel = process.memoryUsage().rss;

  // The altered copies, in batches (their latency is not what is measured here).
  const alteredVectors: Float32Array[] = [];
  for (let i = 0; i < altered.length; i += 8) {
    const images = await Promise.all(altered.slice(i, i + 8).map((a) => prepare(a.bytes)));
    alteredVectors.push(...(await embedder.embedImages(images)));
  }
  log(`${model}: ${photos.length} photos and ${altered.length} altered copies embedded`);

  const ranks = altered.map((a, n) => rankOf(alteredVectors[n]!, vectors, a.original));
  const perAlteration: Record<string, RetrievalFigures> = {};
  for (const name of Object.keys(ALTERATIONS))
    perAlteration[name] = roundRetrieval(retrievalFigures(ranks.filter((_, n) => altered[n]!.alteration === name)));

  const categories = photos.map((p) => p.category);
  const hasSubcategories = photos.every((p) => p.subcategory !== undefined);
  const subcategories = photos.map((p) => p.subcategory ?? '');
  const plain = (i: number) => nearestNeighbours(vectors, i, k);
  const categoryFirst = (i: number) => nearestNeighboursGroupFirst(vectors, categories, i, k);
  const catalogTiers = (i: number) => nearestNeighboursByTiers(vectors, [subcategories, categories], i, k);

  // Scores: an altered copy against its original, and the best photo that is not its original.
  const originalScores = altered.map((a, n) => dot(alteredVectors[n]!, vectors[a.original]!));
  const bestOtherScores = altered.map((a, n) =>
    Math.max(...vectors.filter((_, j) => j !== a.original).map((v) => dot(alteredVectors[n]!, v))),
  );
  const nearestScores = vectors.map((v, i) => dot(v, vectors[nearestNeighbours(vectors, i, 1)[0]!]!));

  const result: EmbedderFigures = {
    embedder: model,
    product: (PRODUCT_EMBEDDERS as readonly string[]).includes(model),
    ...(embedder.runtime ? { runtime: embedder.runtime } : {}),
    dimensions: embedder.dimensions,
    altered: { ...roundRetrieval(retrievalFigures(ranks)), perAlteration },
    neighbours: {
      k,
      sameCategory: roundShare(sameLabelShare(categories, plain)),
      ...(hasSubcategories ? { sameSubcategory: roundShare(sameLabelShare(subcategories, plain)) } : {}),
    },
    ...(hasSubcategories
      ? {
          categoryFirst: { sameSubcategory: roundShare(sameLabelShare(subcategories, categoryFirst)) },
          catalogTiers: {
            sameSubcategory: roundShare(sameLabelShare(subcategories, catalogTiers)),
            sameCategory: roundShare(sameLabelShare(categories, catalogTiers)),
          },
        }
      : {}),
    scores: {
      alteredVsOriginal: spread(originalScores),
      alteredVsBestOther: spread(bestOtherScores),
      photoVsNearestOther: spread(nearestScores),
    },
    latency: { loadMs: round(loadMs, 0), decodeMs: stats(decodeMs), embedMs: stats(embedMs) },
    rssMb: { before: mb(rssBefore), withModel: mb(rssWithModel), model: mb(rssWithModel - rssBefore) },
  };
  await unload();
  return result;
}

// ---- main ---------------------------------------------------------------------------------------

function readPhotos(options: Options): Photo[] {
  let labels: LabelledPhoto[];
  try {
    labels = parsePhotoLabels(fs.readFileSync(options.labels, 'utf8'));
  } catch (error) {
    throw new UsageError(`--labels ${options.labels}: ${(error as Error).message}`);
  }
  const missing = labels.filter((l) => !fs.statSync(path.join(options.images, l.file), { throwIfNoEntry: false })?.isFile());
  if (missing.length > 0)
    throw new UsageError(`${missing.length} photo(s) of ${options.labels} are not in ${options.images}, e.g. ${missing[0]!.file}`);
  if (labels.length < options.neighbours + 1)
    throw new UsageError(`${labels.length} photos: --neighbours ${options.neighbours} needs at least ${options.neighbours + 1}`);
  return labels.map((label) => ({ ...label, bytes: fs.readFileSync(path.join(options.images, label.file)) }));
}

const counts = (values: string[]): Record<string, number> =>
  Object.fromEntries([...new Set(values)].sort().map((v) => [v, values.filter((x) => x === v).length]));

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const config = loadConfig({ ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'silent' });
  const vision: VisionConfig = { ...config.vision, clipModelDir: options.clipDir ?? config.vision.clipModelDir };
  const photos = readPhotos(options);
  const hasSubcategories = photos.every((p) => p.subcategory !== undefined);
  emit({
    step: 'photos',
    images: photos.length,
    categories: counts(photos.map((p) => p.category)),
    ...(hasSubcategories ? { subcategories: counts(photos.map((p) => p.subcategory!)) } : {}),
    // What neighbours drawn without looking at the images would share.
    chance: {
      sameCategory: round(chanceShare(photos.map((p) => p.category)), 3),
      ...(hasSubcategories ? { sameSubcategory: round(chanceShare(photos.map((p) => p.subcategory!)), 3) } : {}),
    },
  });

  log(`making ${Object.keys(ALTERATIONS).length} altered copies of ${photos.length} photos`);
  const altered: Altered[] = [];
  for (const [alteration, alter] of Object.entries(ALTERATIONS))
    for (let original = 0; original < photos.length; original += 1)
      altered.push({ original, alteration, bytes: await alter(photos[original]!.bytes) });

  const results: EmbedderFigures[] = [];
  for (const model of options.embedders) {
    log(`${model}: loading`);
    const figures = await measure(model, vision, photos, altered, options.neighbours);
    emit({ step: 'embedder', ...figures });
    results.push(figures);
  }
  emit({
    step: 'summary',
    images: photos.length,
    alteredCopies: altered.length,
    neighbours: options.neighbours,
    embedders: results.map((r) => ({
      embedder: r.embedder,
      ...(r.runtime ? { runtime: r.runtime } : {}),
      dimensions: r.dimensions,
      recallAt1: r.altered.recallAt1,
      recallAt5: r.altered.recallAt5,
      mrr: r.altered.mrr,
      sameCategory: r.neighbours.sameCategory.overall,
      sameSubcategory: r.neighbours.sameSubcategory?.overall,
      categoryFirstSameSubcategory: r.categoryFirst?.sameSubcategory.overall,
      catalogTiersSameSubcategory: r.catalogTiers?.sameSubcategory.overall,
      embedMsP50: r.latency.embedMs.p50,
      embedMsP95: r.latency.embedMs.p95,
      modelRssMb: r.rssMb.model,
    })),
    cpus: os.cpus().length,
    loadAverage: os.loadavg().map((l) => round(l, 1)),
  });
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`bench:vision-quality: ${error.message}\n${USAGE}\n`);
        process.exit(2);
      }
      process.stderr.write(`bench:vision-quality failed: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
