/**
 * The score calibration's arithmetic (vision/calibration.ts): nearest-neighbour scores, the knots and
 * the good-match threshold derived from them, the raw → calibrated mapping and its inverse, the
 * sample, and when a calibration is stale.
 */
import { expect } from 'chai';
import {
  CALIBRATION_MAX_SAMPLE,
  CALIBRATION_MIN_SAMPLE,
  CALIBRATION_WORK,
  calibratedScore,
  calibrationStale,
  GOOD_MATCH_MARGIN,
  isGoodMatch,
  KNOT_COUNT,
  knotsFromScores,
  nearestNeighbourScores,
  rawScoreFor,
  sampleRows,
  sampleSizeFor,
  type Calibration,
} from '../../vision/calibration';

/** A deterministic pseudo-random number in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function unitRows(n: number, d: number, next: () => number): Float32Array {
  const m = new Float32Array(n * d);
  for (let r = 0; r < n; r += 1) {
    let norm = 0;
    for (let i = 0; i < d; i += 1) {
      m[r * d + i] = next() - 0.5;
      norm += m[r * d + i]! ** 2;
    }
    for (let i = 0; i < d; i += 1) m[r * d + i]! /= Math.sqrt(norm);
  }
  return m;
}

describe('vision calibration', () => {
  it('measures each sampled row against every other row, leaving the same photo out', async () => {
    const n = 37;
    const d = 24;
    const m = unitRows(n, d, random(1));
    m.copyWithin(3 * d, 10 * d, 11 * d); // rows 3 and 10: the same photo
    const rows = [0, 3, 10, 5, 36, 20];
    const got = await nearestNeighbourScores(m, n, d, rows);
    const want = rows.map((row) => {
      let best = -1;
      for (let other = 0; other < n; other += 1) {
        if (other === row) continue;
        let dot = 0;
        for (let i = 0; i < d; i += 1) dot += m[row * d + i]! * m[other * d + i]!;
        const score = (1 + dot) / 2;
        if (score < 0.9995) best = Math.max(best, score);
      }
      return best;
    });
    expect(got).to.have.length(rows.length);
    got.forEach((score, i) => expect(score).to.be.closeTo(want[i]!, 1e-6));
    // Row 3's nearest neighbour is not its copy.
    expect(got[1]).to.be.below(0.9995);
  });

  it('samples every row of a small store, an even spread of a large one, within the work budget', () => {
    expect(sampleRows(5, 256)).to.deep.equal([0, 1, 2, 3, 4]);
    const spread = sampleRows(1000, 4);
    expect(spread).to.deep.equal([0, 250, 500, 750]);
    expect(sampleSizeFor(50, 1280)).to.equal(50);
    expect(sampleSizeFor(500, 1280)).to.equal(CALIBRATION_MAX_SAMPLE);
    const large = sampleSizeFor(20_000, 1280);
    expect(large).to.equal(CALIBRATION_MIN_SAMPLE);
    expect(sampleSizeFor(5_000, 1280) * 5_000 * 1280).to.be.at.most(CALIBRATION_WORK);
  });

  it('puts the good-match threshold at the 99th percentile (nearest rank) plus the margin, and 0.5 there', () => {
    const small = knotsFromScores([0.8, 0.9, 0.7, 0.85])!;
    expect(small).to.have.length(KNOT_COUNT);
    expect(small[0]).to.equal(0.7);
    expect(small[KNOT_COUNT - 1]).to.be.closeTo(0.9 + GOOD_MATCH_MARGIN, 1e-12);
    // 200 scores: the threshold is the 198th, so two products reach above it.
    const scores = Array.from({ length: 200 }, (_, i) => 0.5 + i / 1000);
    const knots = knotsFromScores(scores)!;
    expect(knots[KNOT_COUNT - 1]).to.be.closeTo(0.5 + 197 / 1000 + GOOD_MATCH_MARGIN, 1e-12);
    expect(scores.filter((s) => isGoodMatch(knots, s))).to.have.length(2);
    expect(knotsFromScores([])).to.equal(null);
    for (let k = 1; k < KNOT_COUNT; k += 1) expect(knots[k]).to.be.at.least(knots[k - 1]!);
  });

  it('maps raw scores onto 0–1 monotonically: 0 below the lowest, k/100 at knot k, 0.5 at the threshold, 1 for the same image', () => {
    const knots = knotsFromScores(Array.from({ length: 101 }, (_, i) => 0.6 + (0.3 * i) / 100))!;
    const t = knots[KNOT_COUNT - 1]!;
    expect(calibratedScore(knots, 0.1)).to.equal(0);
    expect(calibratedScore(knots, knots[10]!)).to.be.closeTo(0.1, 1e-9);
    expect(calibratedScore(knots, knots[25]!)).to.be.closeTo(0.25, 1e-9);
    expect(calibratedScore(knots, t)).to.equal(0.5);
    expect(calibratedScore(knots, 1)).to.equal(1);
    expect(calibratedScore(knots, t + (1 - t) / 2)).to.be.closeTo(0.75, 1e-9);
    let previous = -1;
    for (let raw = 0.5; raw <= 1; raw += 0.001) {
      const c = calibratedScore(knots, raw);
      expect(c).to.be.at.least(previous);
      expect(isGoodMatch(knots, raw)).to.equal(c >= 0.5);
      previous = c;
    }
  });

  it('turns a minimum on the calibrated scale into the lowest raw score that reaches it', () => {
    // Plateaus included: many products at the same nearest-neighbour score.
    const knots = knotsFromScores([0.65, 0.65, 0.65, 0.65, 0.65, 0.65, 0.95, 0.95, 0.95])!;
    expect(rawScoreFor(knots, 0)).to.equal(0);
    expect(rawScoreFor(knots, 0.5)).to.equal(knots[KNOT_COUNT - 1]);
    expect(rawScoreFor(knots, 1)).to.be.closeTo(1, 1e-12);
    for (const minimum of [0.05, 0.2, 0.31, 0.33, 0.4, 0.49, 0.5, 0.6, 0.9, 0.999]) {
      const raw = rawScoreFor(knots, minimum);
      expect(calibratedScore(knots, raw), `at ${minimum}`).to.be.at.least(minimum - 1e-9);
      expect(calibratedScore(knots, raw - 1e-6), `just below ${minimum}`).to.be.below(minimum + 1e-9);
    }
  });

  it('is stale for another model, or once the vectors changed by a tenth', () => {
    const calibration: Calibration = {
      model: 'mobilenet-v2',
      dimensions: 1280,
      vectors: 100,
      sampleSize: 100,
      knots: [],
      computedAt: new Date(),
    };
    expect(calibrationStale(null, 10, 'mobilenet-v2', 1280)).to.equal(true);
    expect(calibrationStale(calibration, 100, 'mobilenet-v2', 1280)).to.equal(false);
    expect(calibrationStale(calibration, 109, 'mobilenet-v2', 1280)).to.equal(false);
    expect(calibrationStale(calibration, 110, 'mobilenet-v2', 1280)).to.equal(true);
    expect(calibrationStale(calibration, 90, 'mobilenet-v2', 1280)).to.equal(true);
    expect(calibrationStale(calibration, 100, 'clip', 512)).to.equal(true);
    expect(calibrationStale({ ...calibration, vectors: 3 }, 4, 'mobilenet-v2', 1280)).to.equal(true);
  });
});
