/**
 * Price buckets derived from a store's prices (search/price-buckets.ts): about five, with nice
 * bounds (1, 2, 2.5, 5 × 10^k), fair shares, none empty, counts adding up to the products; none when
 * the prices allow no two buckets.
 */
import { expect } from 'chai';
import {
  bucketCountsFromCells,
  bucketLabel,
  cellFloor,
  deriveBuckets,
  distributionOf,
  formatBound,
  ladderCell,
  NICE_LADDER,
  onLadder,
  type DerivedBucket,
} from '../../search/price-buckets';

const isNice = (value: number): boolean => value === 0 || NICE_LADDER.includes(value);

/** What every derived list must satisfy for these prices. */
function checkBuckets(buckets: DerivedBucket[], prices: number[]): void {
  const min = Math.min(...prices);
  const max = Math.max(...prices);
  expect(buckets.length).to.be.within(2, 5);
  expect(buckets[0]!.min).to.be.at.most(min);
  expect(buckets.at(-1)!.max).to.equal(null);
  for (const [i, bucket] of buckets.entries()) {
    expect(isNice(bucket.min), `${bucket.min} is nice`).to.equal(true);
    if (bucket.max !== null) {
      expect(isNice(bucket.max), `${bucket.max} is nice`).to.equal(true);
      expect(bucket.max).to.be.greaterThan(min).and.at.most(max);
      expect(buckets[i + 1]!.min).to.equal(bucket.max);
    }
    const inside = prices.filter((p) => p >= bucket.min && (bucket.max === null || p < bucket.max)).length;
    expect(bucket.count, `count of ${bucket.label}`).to.equal(inside);
    expect(bucket.count, `${bucket.label} is not empty`).to.be.greaterThan(0);
  }
  expect(buckets.reduce((sum, b) => sum + b.count, 0)).to.equal(prices.length);
}

/** A deterministic spread of n prices between lo and hi, evenly in log scale (like a real catalog). */
const logSpread = (n: number, lo: number, hi: number): number[] =>
  Array.from({ length: n }, (_, i) => Math.round(lo * (hi / lo) ** (i / (n - 1)) * 100) / 100);

describe('derived price buckets', () => {
  it('the ladder holds the nice numbers in order, and a price falls in the cell width_bucket gives it', () => {
    expect(NICE_LADDER.slice(0, 8)).to.deep.equal([0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5]);
    expect(NICE_LADDER).to.include.members([100, 250, 500, 1000, 2500, 5000]);
    for (let i = 1; i < NICE_LADDER.length; i += 1) expect(NICE_LADDER[i]).to.be.greaterThan(NICE_LADDER[i - 1]!);
    expect(ladderCell(0)).to.equal(0);
    expect(ladderCell(0.01)).to.equal(1);
    expect(ladderCell(100)).to.equal(NICE_LADDER.indexOf(100) + 1);
    expect(ladderCell(99.99)).to.equal(NICE_LADDER.indexOf(100));
    expect(ladderCell(1e12)).to.equal(NICE_LADDER.length);
  });

  it('labels group thousands and keep at most two decimals', () => {
    expect(formatBound(2500)).to.equal('2,500');
    expect(formatBound(0.25)).to.equal('0.25');
    expect(bucketLabel({ min: 1000, max: 2500 })).to.equal('1,000–2,500');
    expect(bucketLabel({ min: 5000, max: null })).to.equal('5,000+');
    expect(bucketLabel({ min: 0, max: 50 })).to.equal('0–50');
  });

  it('138.99–7,690.99 (the demo shop): five buckets from 100, nice bounds inside the range, fair shares', () => {
    const prices = logSpread(100, 138.99, 7690.99);
    const buckets = deriveBuckets(distributionOf(prices));
    checkBuckets(buckets, prices);
    expect(buckets).to.have.length(5);
    expect(buckets[0]!.min).to.equal(100);
    // Fair: no bucket holds more than twice its share of 20.
    for (const b of buckets) expect(b.count).to.be.within(8, 40);
    expect(buckets.map((b) => b.label)).to.deep.equal(buckets.map((b) => bucketLabel(b)));
    for (let i = 1; i < buckets.length - 1; i += 1) expect(buckets[i]!.max! / buckets[i]!.min).to.be.at.least(2);
  });

  it('a uniform spread 130–7,700 gets fair buckets too', () => {
    const prices = Array.from({ length: 200 }, (_, i) => Math.round((130 + (7570 * i) / 199) * 100) / 100);
    const buckets = deriveBuckets(distributionOf(prices));
    checkBuckets(buckets, prices);
    expect(buckets.length).to.be.at.least(4);
  });

  it('all products at one price, or one product, or none: no buckets', () => {
    expect(deriveBuckets(distributionOf(Array.from({ length: 30 }, () => 49.9)))).to.deep.equal([]);
    expect(deriveBuckets(distributionOf([19.99]))).to.deep.equal([]);
    expect(deriveBuckets(distributionOf([]))).to.deep.equal([]);
  });

  it('two prices: two buckets split at a nice number between them', () => {
    const prices = [12, 80];
    const buckets = deriveBuckets(distributionOf(prices));
    checkBuckets(buckets, prices);
    expect(buckets).to.deep.equal([
      { min: 10, max: 20, label: '10–20', count: 1 },
      { min: 20, max: null, label: '20+', count: 1 },
    ]);
  });

  it('prices 0.5–3: small bounds keep their decimals', () => {
    const prices = Array.from({ length: 26 }, (_, i) => 0.5 + i * 0.1);
    const buckets = deriveBuckets(distributionOf(prices));
    checkBuckets(buckets, prices);
    expect(buckets[0]!.min).to.equal(0.5);
    // Neighbouring bounds at least double: no 2–2.5 sliver.
    expect(buckets.map((b) => b.label)).to.deep.equal(['0.5–1', '1–2', '2+']);
  });

  it('heavy skew (95 cheap, 5 very expensive): fewer buckets, none empty, the cluster kept tight', () => {
    const prices = [...Array.from({ length: 95 }, (_, i) => 10 + (i % 10)), 5000, 5200, 6100, 7000, 9900];
    const buckets = deriveBuckets(distributionOf(prices));
    checkBuckets(buckets, prices);
    expect(buckets.map((b) => b.label)).to.deep.equal(['10–20', '20+']);
    expect(buckets.map((b) => b.count)).to.deep.equal([95, 5]);
  });

  it('a long tail (many cheap, a few at every decade up): still about five buckets with products in each', () => {
    const prices = [...logSpread(60, 1, 40), ...logSpread(30, 40, 900), ...logSpread(10, 900, 25000)];
    const buckets = deriveBuckets(distributionOf(prices));
    checkBuckets(buckets, prices);
    expect(buckets.length).to.be.at.least(4);
  });

  it('free products: the first bucket starts at 0', () => {
    const prices = [0, 0, 0, 5, 10, 20, 40, 80, 100, 150];
    const buckets = deriveBuckets(distributionOf(prices));
    checkBuckets(buckets, prices);
    expect(buckets[0]!.min).to.equal(0);
  });
});

describe('price bucket counts from ladder cells', () => {
  it('every derived bucket is counted from the cells exactly as from the prices themselves', () => {
    const prices = [...logSpread(400, 0.5, 9_000), 0, 0, 138.99, 7_690.99, 250, 250, 2_500];
    const buckets = deriveBuckets(distributionOf(prices));
    const cells: Record<string, number> = {};
    for (const price of prices) cells[ladderCell(price)] = (cells[ladderCell(price)] ?? 0) + 1;
    expect(bucketCountsFromCells(buckets, cells)).to.deep.equal(buckets.map((b) => b.count));
  });

  it('a cell starts at its ladder value; bounds on the ladder (and 0) are countable, others are not', () => {
    expect([0, 1, 17, 20].map(cellFloor)).to.deep.equal([0, 0.01, 100, 500]);
    expect([0, 0.01, 50, 100, 250, 2_500, 1e9].every(onLadder)).to.equal(true);
    expect([75, 99.99, 300, 0.03, 1_500].some(onLadder)).to.equal(false);
    expect(
      bucketCountsFromCells(
        [
          { min: 0, max: 75 },
          { min: 75, max: null },
        ],
        { '16': 3 },
      ),
    ).to.equal(undefined);
    expect(
      bucketCountsFromCells(
        [
          { min: 0, max: 50 },
          { min: 50, max: null },
        ],
        { '15': 2, '16': 3, '17': 1 },
      ),
    ).to.deep.equal([2, 4]);
  });
});
