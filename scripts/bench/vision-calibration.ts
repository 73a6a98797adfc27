/**
 * `npm run bench:vision-calibration -- --images <dir> --labels <csv> [--embedder mobilenet-v2]`: does
 * the per-store score calibration (vision/calibration.ts) separate true matches from merely similar
 * products? (docs/search.md, "Scores and calibration"; docs/benchmarks.md.)
 *
 * The labelled photos (the label file of `npm run bench:vision-quality`; `npm run bench:vision-photos`
 * builds them outside the repository) are one store's catalogue: every photo is embedded as the
 * product loads the model, and the store is calibrated from those vectors as the vision worker does
 * (every photo sampled up to 256). Then five altered copies of each photo (a crop, a mirror image, a
 * darker copy, a small low-quality JPEG, a slight rotation: a shopper's photo of the same product) are
 * queried against the catalogue, and it prints
 * - `goodMatchRecall`: the share of altered copies that are a good match for their own product
 *   (overall and per alteration);
 * - `falseGoodMatch`: the share whose best *other* product is a good match (what the threshold lets
 *   through that it should not);
 * - the raw and calibrated scores of both (percentiles), and the same two shares had the threshold
 *   been another percentile of the nearest-neighbour scores (the trade-off a store's minSimilarity
 *   chooses on the calibrated scale).
 * One JSON object per line (stdout), progress on stderr.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ALTERATIONS } from './vision-alterations';
import { loadConfig } from '../../lib/config';
import type { VisualModel } from '../../storage/entities/product-image-vector.entity';
import { disposeEmbedders, getEmbedder } from '../../vision/embedder';
import { prepareImage } from '../../vision/image';
import {
  calibratedScore,
  GOOD_MATCH_MARGIN,
  isGoodMatch,
  knotsFromScores,
  nearestNeighbourScores,
  sampleRows,
  sampleSizeFor,
} from '../../vision/calibration';
import { scoreOfCosine } from '../../storage/vectors';
import { emit, log, parseFlags } from './common';
import { parsePhotoLabels, percentileOf } from './vision-quality-metrics';

const USAGE = 'usage: npm run bench:vision-calibration -- --images <dir> --labels <csv> [--embedder mobilenet-v2|clip]';

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const share = (hits: number, of: number): number => r4(of ? hits / of : 0);

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), []);
  const images = flags.get('images');
  const labelsFile = flags.get('labels');
  if (!images || !labelsFile) throw new Error(USAGE);
  const model = (flags.get('embedder') ?? 'mobilenet-v2') as VisualModel;
  const photos = parsePhotoLabels(fs.readFileSync(labelsFile, 'utf8'));
  const config = loadConfig();
  const embedder = await getEmbedder(model, config.vision);
  const embed = async (bytes: Buffer): Promise<Float32Array> =>
    (await embedder.embedImages([await prepareImage(bytes, { size: embedder.inputSize, maxPixels: config.vision.maxPixels })]))[0]!;
  try {
    log(`embedding ${photos.length} photos with ${model}`);
    const originals: Float32Array[] = [];
    for (const photo of photos) originals.push(await embed(fs.readFileSync(path.join(images, photo.file))));
    const n = originals.length;
    const d = embedder.dimensions;
    const matrix = new Float32Array(n * d);
    originals.forEach((v, i) => matrix.set(v, i * d));
    const nearest = await nearestNeighbourScores(matrix, n, d, sampleRows(n, sampleSizeFor(n, d)));
    const knots = knotsFromScores(nearest);
    if (!knots) throw new Error('fewer than two distinct photos');
    const raw = (a: Float32Array, b: Float32Array): number => {
      let sum = 0;
      for (let i = 0; i < d; i += 1) sum += a[i]! * b[i]!;
      return scoreOfCosine(sum);
    };

    log('querying the altered copies');
    const own: number[] = [];
    const bestOther: number[] = [];
    const perAlteration: Record<string, number> = {};
    for (const [name, alter] of Object.entries(ALTERATIONS)) {
      let good = 0;
      for (const [i, photo] of photos.entries()) {
        const vector = await embed(await alter(fs.readFileSync(path.join(images, photo.file))));
        const mine = raw(vector, originals[i]!);
        let other = -1;
        for (let j = 0; j < n; j += 1) if (j !== i) other = Math.max(other, raw(vector, originals[j]!));
        own.push(mine);
        bestOther.push(other);
        if (isGoodMatch(knots, mine)) good += 1;
      }
      perAlteration[name] = share(good, photos.length);
    }
    const sortedNearest = [...nearest].sort((a, b) => a - b);
    const thresholds = [0.8, 0.9, 0.95, 0.99].map((quantile) => {
      const t = sortedNearest[Math.max(1, Math.ceil(quantile * sortedNearest.length)) - 1]! + GOOD_MATCH_MARGIN;
      return {
        quantile,
        rawThreshold: r4(t),
        calibratedScore: r4(calibratedScore(knots, t)),
        goodMatchRecall: share(own.filter((s) => s >= t).length, own.length),
        falseGoodMatch: share(bestOther.filter((s) => s >= t).length, bestOther.length),
      };
    });
    const scores = (values: number[]) => ({
      raw: { p10: r4(percentileOf(values, 10)), p50: r4(percentileOf(values, 50)), p90: r4(percentileOf(values, 90)) },
      calibrated: {
        p10: r4(calibratedScore(knots, percentileOf(values, 10))),
        p50: r4(calibratedScore(knots, percentileOf(values, 50))),
        p90: r4(calibratedScore(knots, percentileOf(values, 90))),
      },
    });
    emit({
      phase: 'summary',
      model,
      photos: n,
      sampleSize: nearest.length,
      goodMatchScore: r4(knots[knots.length - 1]!),
      nearestNeighbourMedian: r4(percentileOf(nearest, 50)),
      alteredCopies: own.length,
      goodMatchRecall: share(own.filter((s) => isGoodMatch(knots, s)).length, own.length),
      perAlteration,
      falseGoodMatch: share(bestOther.filter((s) => isGoodMatch(knots, s)).length, bestOther.length),
      ownProduct: scores(own),
      bestOtherProduct: scores(bestOther),
      otherThresholds: thresholds,
    });
  } finally {
    await disposeEmbedders();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit((error as Error).message === USAGE ? 2 : 1);
});
