/**
 * Score calibration per store (docs/search.md, "Scores and calibration").
 *
 * A raw score, (1 + cosine) / 2 of two image vectors, means different things in different stores and
 * with different models: with MobileNetV2 features the best *other* product of a photo typically
 * scores 0.81–0.96, so 0.9 says little on its own. What separates "the same product" from "a merely
 * similar one" is how the score compares with the scores that distinct products of this store reach
 * against each other. So, per store, the nearest-neighbour score of each product (its best raw score
 * against any other product of the store) is measured on a sample, and:
 *
 * - the good-match threshold `t` is the 99th percentile of those scores (nearest rank, so the largest
 *   one in a store of fewer than 100 sampled products) plus 0.0001: a hit at or above it is more
 *   similar to the query than 99 % of the store's products are to their most similar other product;
 * - the calibrated score maps raw scores onto 0–1 through that distribution: below `t` it is half the
 *   score's rank among the nearest-neighbour scores (0 below the lowest, about 0.25 at the median,
 *   0.5 at `t`), above `t` it rises linearly from 0.5 to 1 at a raw score of 1 (the same image).
 *   So `goodMatch` ⇔ calibrated score ≥ 0.5, and a store's `minSimilarity` is read on this scale.
 *
 * Pairs at or above IDENTICAL_SCORE (the same photo listed twice) are true matches, not "merely
 * similar", and are left out of the distribution. The cost is bounded: at most CALIBRATION_WORK
 * multiply-adds (a sample of 64–256 products, each scored against every vector of the store), yielding
 * to the event loop as it goes.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { DataSource, EntityManager } from 'typeorm';
import type { VisualModel } from '../storage/entities/product-image-vector.entity';
import { scoreOfCosine } from '../storage/vectors';
import { storeMatrix } from './query';

/** Most products whose nearest neighbour is measured. */
export const CALIBRATION_MAX_SAMPLE = 256;
/** Fewest (when the store has that many) even when the work budget would allow fewer. */
export const CALIBRATION_MIN_SAMPLE = 64;
/** Multiply-adds one calibration may spend before it samples fewer products (about a second of one core). */
export const CALIBRATION_WORK = 1e9;
/** Raw score from which two vectors count as the same photo. */
export const IDENTICAL_SCORE = 0.9995;
/** Share of the store's nearest-neighbour scores below the good-match threshold. */
export const GOOD_MATCH_QUANTILE = 0.99;
/** Added to the threshold: Meilisearch's score and ours of the same pair differ in the last float bits. */
export const GOOD_MATCH_MARGIN = 1e-4;
/** knots[k] calibrates to k / 100. */
export const KNOT_COUNT = 51;
/** Vectors added or removed, as a share of those calibrated against, that make a calibration stale. */
export const STALE_SHARE = 0.1;

export interface Calibration {
  model: VisualModel;
  dimensions: number;
  /** The store's vectors of the model when computed. */
  vectors: number;
  /** Products whose nearest neighbour was measured. */
  sampleSize: number;
  /** knots[k] is the raw score that calibrates to k / 100 (k = 0 … 50); knots[50] is the good-match threshold. */
  knots: number[];
  computedAt: Date;
}

/** `size` rows spread evenly over `n` (all of them when n ≤ size): deterministic, so a rerun measures the same products. */
export function sampleRows(n: number, size: number): number[] {
  if (n <= size) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: size }, (_, i) => Math.floor((i * n) / size));
}

/** How many products to sample in a store of `n` vectors of `dimensions`. */
export function sampleSizeFor(n: number, dimensions: number): number {
  const affordable = Math.floor(CALIBRATION_WORK / Math.max(1, n * dimensions));
  return Math.min(n, CALIBRATION_MAX_SAMPLE, Math.max(CALIBRATION_MIN_SAMPLE, affordable));
}

/**
 * The nearest-neighbour raw score of each sampled row of `matrix` (n × dimensions, L2-normalised rows)
 * against every other row, identical photos left out; rows with no other non-identical row give none.
 */
export async function nearestNeighbourScores(matrix: Float32Array, n: number, dimensions: number, rows: number[]): Promise<number[]> {
  const scores: number[] = [];
  // Four sampled rows at a time, copied side by side: each row of the store is read once per four
  // dot products (about 1.5 times faster than one at a time). A turn for the event loop about every
  // 20 million multiply-adds.
  const groupsPerTurn = Math.max(1, Math.floor(2e7 / Math.max(1, 4 * n * dimensions)));
  const block = new Float32Array(4 * dimensions);
  const d = dimensions;
  for (let first = 0, group = 0; first < rows.length; first += 4, group += 1) {
    if (group > 0 && group % groupsPerTurn === 0) await yieldToLoop();
    const members = rows.slice(first, first + 4);
    block.fill(0);
    members.forEach((row, k) => block.set(matrix.subarray(row * d, (row + 1) * d), k * d));
    const best = [-1, -1, -1, -1];
    for (let other = 0; other < n; other += 1) {
      const offset = other * d;
      let d0 = 0;
      let d1 = 0;
      let d2 = 0;
      let d3 = 0;
      for (let i = 0; i < d; i += 1) {
        const x = matrix[offset + i]!;
        d0 += block[i]! * x;
        d1 += block[d + i]! * x;
        d2 += block[2 * d + i]! * x;
        d3 += block[3 * d + i]! * x;
      }
      const dots = [d0, d1, d2, d3];
      for (let k = 0; k < members.length; k += 1) {
        if (members[k] === other) continue;
        const score = scoreOfCosine(dots[k]!);
        if (score < IDENTICAL_SCORE && score > best[k]!) best[k] = score;
      }
    }
    for (let k = 0; k < members.length; k += 1) if (best[k]! >= 0) scores.push(best[k]!);
  }
  return scores;
}

/** The knots of a calibration from nearest-neighbour scores; null without any. */
export function knotsFromScores(scores: number[]): number[] | null {
  if (scores.length === 0) return null;
  const sorted = [...scores].sort((a, b) => a - b);
  // Nearest rank: the threshold is a score some product really reaches against another.
  const rank = Math.max(1, Math.ceil(GOOD_MATCH_QUANTILE * sorted.length));
  const kept = sorted.slice(0, rank);
  const knots: number[] = [];
  for (let k = 0; k < KNOT_COUNT - 1; k += 1) {
    const position = (k / (KNOT_COUNT - 1)) * (kept.length - 1);
    const low = Math.floor(position);
    const high = Math.min(kept.length - 1, low + 1);
    knots.push(kept[low]! + (position - low) * (kept[high]! - kept[low]!));
  }
  knots.push(kept[kept.length - 1]! + GOOD_MATCH_MARGIN);
  return knots;
}

/** The calibrated score (0–1) of a raw score. */
export function calibratedScore(knots: readonly number[], raw: number): number {
  const threshold = knots[KNOT_COUNT - 1]!;
  if (raw >= threshold) return threshold >= 1 ? 1 : 0.5 + 0.5 * Math.min(1, (raw - threshold) / (1 - threshold));
  if (raw < knots[0]!) return 0;
  // The last knot at or below the score (raw < threshold, so k < 50).
  let low = 0;
  let high = KNOT_COUNT - 1;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (knots[middle]! <= raw) low = middle;
    else high = middle;
  }
  const span = knots[low + 1]! - knots[low]!;
  return (low + (span > 0 ? (raw - knots[low]!) / span : 0)) / 100;
}

/** The lowest raw score whose calibrated score is at least `calibrated` (what a minimum similarity filters on). */
export function rawScoreFor(knots: readonly number[], calibrated: number): number {
  if (calibrated <= 0) return 0;
  const threshold = knots[KNOT_COUNT - 1]!;
  if (calibrated >= 0.5) return Math.min(1, threshold + (calibrated - 0.5) * 2 * (1 - threshold));
  const position = calibrated * 100;
  const k = Math.floor(position);
  return knots[k]! + (position - k) * (knots[k + 1]! - knots[k]!);
}

/** Whether a raw score is a good match in a store of these knots: at or above the threshold. */
export function isGoodMatch(knots: readonly number[], raw: number): boolean {
  return raw >= knots[KNOT_COUNT - 1]!;
}

/** A hit's calibrated score, to four decimals; null while the store has no calibration for its model. */
export function calibratedScoreOf(calibration: Calibration | null, raw: number): number | null {
  return calibration ? Math.round(calibratedScore(calibration.knots, raw) * 1e4) / 1e4 : null;
}

/** Whether a hit is a good match: at or above the store's threshold; uncalibrated, only the same photo (IDENTICAL_SCORE). */
export function goodMatchOf(calibration: Calibration | null, raw: number): boolean {
  return calibration ? isGoodMatch(calibration.knots, raw) : raw >= IDENTICAL_SCORE;
}

/** The raw score a store's minimum similarity comes to: read on the calibrated scale once the store is calibrated, on the raw one before. */
export function minimumRawScore(calibration: Calibration | null, minSimilarity: number): number {
  return calibration ? rawScoreFor(calibration.knots, minSimilarity) : minSimilarity;
}

/** Whether a calibration no longer describes the store: another model, or the vector count moved by STALE_SHARE or more. */
export function calibrationStale(calibration: Calibration | null, vectors: number, model: VisualModel, dimensions: number): boolean {
  if (!calibration || calibration.model !== model || calibration.dimensions !== dimensions) return true;
  return Math.abs(vectors - calibration.vectors) >= Math.max(1, Math.ceil(STALE_SHARE * calibration.vectors));
}

interface CalibrationRow {
  model: VisualModel;
  dimensions: number;
  vectors: number;
  sample_size: number;
  knots: number[];
  computed_at: Date;
}

const fromRow = (row: CalibrationRow): Calibration => ({
  model: row.model,
  dimensions: row.dimensions,
  vectors: row.vectors,
  sampleSize: row.sample_size,
  knots: row.knots.map(Number),
  computedAt: row.computed_at,
});

/** The store's stored calibration, whatever its model (compare it with the store's before use); null when there is none. */
export async function storedCalibration(db: DataSource | EntityManager, storeId: string, tenantId: string): Promise<Calibration | null> {
  const [row]: CalibrationRow[] = await db.query(
    'SELECT model, dimensions, vectors, sample_size, knots, computed_at FROM visual_search_calibrations WHERE store_id = $1 AND tenant_id = $2',
    [storeId, tenantId],
  );
  return row ? fromRow(row) : null;
}

/** The store's calibration when it was computed for this model; null otherwise (raw scores then stand alone). */
export async function calibrationFor(
  db: DataSource | EntityManager,
  storeId: string,
  tenantId: string,
  model: VisualModel,
  dimensions: number,
): Promise<Calibration | null> {
  const calibration = await storedCalibration(db, storeId, tenantId);
  return calibration && calibration.model === model && calibration.dimensions === dimensions ? calibration : null;
}

/** How many vectors of the model the store has now. */
export async function currentVectorCount(
  db: DataSource | EntityManager,
  storeId: string,
  tenantId: string,
  model: VisualModel,
  dimensions: number,
): Promise<number> {
  const [row]: Array<{ n: number }> = await db.query(
    `SELECT count(*)::int AS n FROM product_image_vectors
      WHERE store_id = $1 AND tenant_id = $2 AND vector IS NOT NULL AND model = $3 AND dimensions = $4`,
    [storeId, tenantId, model, dimensions],
  );
  return row?.n ?? 0;
}

/**
 * Measures the store's nearest-neighbour scores from its vectors of `model` and stores the result
 * (replacing the previous one); answers it, or null (and removes any stored one) when the store has
 * fewer than two vectors or only copies of the same photos.
 */
export async function computeCalibration(
  db: DataSource,
  storeId: string,
  tenantId: string,
  model: VisualModel,
  dimensions: number,
): Promise<Calibration | null> {
  const { ids, matrix } = await storeMatrix(db, storeId, tenantId, model, dimensions);
  const n = ids.length;
  const scores = n >= 2 ? await nearestNeighbourScores(matrix, n, dimensions, sampleRows(n, sampleSizeFor(n, dimensions))) : [];
  const knots = knotsFromScores(scores);
  if (!knots) {
    await db.query('DELETE FROM visual_search_calibrations WHERE store_id = $1 AND tenant_id = $2', [storeId, tenantId]);
    return null;
  }
  const [row]: CalibrationRow[] = await db.query(
    `INSERT INTO visual_search_calibrations (store_id, tenant_id, model, dimensions, vectors, sample_size, knots, computed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::double precision[], now())
     ON CONFLICT (store_id) DO UPDATE SET model = $3, dimensions = $4, vectors = $5, sample_size = $6, knots = $7::double precision[], computed_at = now()
       WHERE visual_search_calibrations.tenant_id = $2
     RETURNING model, dimensions, vectors, sample_size, knots, computed_at`,
    [storeId, tenantId, model, dimensions, n, scores.length, knots],
  );
  return row ? fromRow(row) : null;
}
