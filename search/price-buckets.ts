/**
 * Price buckets derived from a store's own prices, for stores whose merchants configured none
 * (docs/search.md, "Price buckets"). The bounds are "nice" numbers (1, 2, 2.5 and 5 × 10^k: 100,
 * 250, 500, 1,000, 2,500 …) chosen so that each of about five buckets holds a fair share of the
 * store's published products, and no bucket is empty.
 *
 * The store profile (search/store-profile.ts) reads the distribution with one SQL: how many
 * published products, their lowest and highest price, and a histogram of the prices over the ladder
 * of nice numbers (`width_bucket`). Because every candidate bound is a ladder value, the histogram
 * gives the exact number of products below each candidate: the bound of the j-th of k buckets is
 * the k - 1 bounds are the ladder values that put the buckets' counts nearest the quantiles' fair
 * share (n/k products each, least squares), so the shares are measured in products, not in price
 * distance. Neighbouring bounds at least double (100, 250, 500, 1,000, 2,500 …, never 2,000 beside
 * 2,500), so every bucket is a range a shopper reads as distinct. No bucket may be empty: where the
 * prices cluster so that k - 1 bounds cannot all have products between them, fewer bounds are chosen. Fewer than two buckets (one product, all
 * products at one price, no products) give no buckets at all: a single range narrows nothing.
 */

/** How many buckets a store gets when its prices allow (fewer when they cluster). */
export const DERIVED_BUCKET_TARGET = 5;

/** How much a bucket's upper bound at least exceeds its lower one (between two derived bounds). */
const MIN_BOUND_RATIO = 2;

/** The mantissas of the nice numbers. */
const NICE_MANTISSAS = [1, 2, 2.5, 5] as const;
/** The decades of the ladder: 0.01 up to 5 × 10^9 (prices are money with at most 2 decimals). */
const FIRST_DECADE = -2;
const LAST_DECADE = 9;

/** The ascending nice numbers every derived bound is one of (the thresholds of the SQL histogram). */
export const NICE_LADDER: readonly number[] = (() => {
  const out: number[] = [];
  for (let e = FIRST_DECADE; e <= LAST_DECADE; e += 1) for (const m of NICE_MANTISSAS) out.push(Number(`${m}e${e}`));
  return out;
})();

export interface PriceDistribution {
  /** Published products with a price. */
  count: number;
  min: number;
  max: number;
  /**
   * `histogram[i]`: products whose price has exactly i ladder values at or below it (PostgreSQL's
   * `width_bucket(price, ladder)`): cell 0 is below the first ladder value, cell i is
   * [ladder[i-1], ladder[i]), the last cell is ladder's last value and above. Length ladder + 1.
   */
  histogram: number[];
}

export interface DerivedBucket {
  min: number;
  /** Exclusive; null: no upper bound (the last bucket). */
  max: number | null;
  label: string;
  /** Products of the store in the bucket when it was derived (the search answer counts afresh). */
  count: number;
}

/** The histogram cell of a price: how many ladder values are at or below it. */
export function ladderCell(price: number): number {
  let lo = 0;
  let hi = NICE_LADDER.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (NICE_LADDER[mid]! <= price) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The lowest price of a ladder cell (cell 0 starts at 0: prices are never negative). */
export const cellFloor = (cell: number): number => (cell === 0 ? 0 : NICE_LADDER[cell - 1]!);

/** Whether a bound is 0 or a ladder value, so that no ladder cell straddles it. */
export const onLadder = (bound: number): boolean => bound === 0 || NICE_LADDER[ladderCell(bound) - 1] === bound;

/**
 * Each bucket's count from the distribution of the products' ladder cells (the documents'
 * `priceCell`), or undefined when a bucket bound is not on the ladder (a merchant's own bounds such
 * as 75): then a cell may hold prices on both sides of it.
 */
export function bucketCountsFromCells(
  buckets: ReadonlyArray<{ min: number; max: number | null }>,
  cells: Record<string, number>,
): number[] | undefined {
  if (!buckets.every((b) => onLadder(b.min) && (b.max === null || onLadder(b.max)))) return undefined;
  const counts = buckets.map(() => 0);
  for (const cell in cells) {
    const floor = cellFloor(Number(cell));
    const at = buckets.findIndex((b) => floor >= b.min && (b.max === null || floor < b.max));
    if (at >= 0) counts[at]! += cells[cell]!;
  }
  return counts;
}

/** The distribution of a list of prices, as the store profile's SQL reads it (for tests and tools). */
export function distributionOf(prices: number[]): PriceDistribution {
  const histogram = new Array<number>(NICE_LADDER.length + 1).fill(0);
  for (const price of prices) histogram[ladderCell(price)]! += 1;
  return {
    count: prices.length,
    min: prices.length ? Math.min(...prices) : 0,
    max: prices.length ? Math.max(...prices) : 0,
    histogram,
  };
}

/** `toLocaleString('en-US', { maximumFractionDigits: 2 })`, set up once: a number format is costly to build, and labels are made per search. */
const BOUND_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A bound as shoppers read it: thousands grouped, at most two decimals (1,000; 2.5; 0.25). */
export function formatBound(value: number): string {
  return BOUND_FORMAT.format(value);
}

/** The label of a bucket without one: "100–250", or "2,500+" for the open-ended last one. */
export function bucketLabel(bucket: { min: number; max: number | null }): string {
  return bucket.max === null ? `${formatBound(bucket.min)}+` : `${formatBound(bucket.min)}–${formatBound(bucket.max)}`;
}

/** The largest ladder value at or below `value` (0 below the ladder). */
function niceFloor(value: number): number {
  const cell = ladderCell(value);
  return cell === 0 ? 0 : NICE_LADDER[cell - 1]!;
}

/** About `target` buckets with nice bounds and fair shares of the distribution; [] when fewer than two fit. */
export function deriveBuckets(dist: PriceDistribution, target = DERIVED_BUCKET_TARGET): DerivedBucket[] {
  if (dist.count < 2 || !(dist.max > dist.min) || dist.histogram.length !== NICE_LADDER.length + 1) return [];
  // below[i]: products cheaper than NICE_LADDER[i] (the cells before i + 1).
  const below: number[] = [];
  let running = 0;
  for (let i = 0; i < NICE_LADDER.length; i += 1) {
    running += dist.histogram[i]!;
    below.push(running);
  }
  // Candidate bounds: ladder values strictly above the lowest price (so the first bucket is not
  // empty) and at most the highest price (so the last, open-ended bucket is not empty).
  const candidates: number[] = [];
  for (let i = 0; i < NICE_LADDER.length; i += 1) if (NICE_LADDER[i]! > dist.min && NICE_LADDER[i]! <= dist.max) candidates.push(i);
  if (candidates.length === 0) return [];

  // The bounds: as many as fit up to target - 1, chosen together so that the buckets' counts are
  // nearest the fair share (least squares over the buckets; every bucket keeps a product, so two
  // bounds must have products between them). Chosen together rather than each quantile rounded on
  // its own, so two neighbouring nice numbers (2,000 and 2,500) do not cut a sliver of a bucket.
  let kept: number[] = [];
  for (let m = Math.min(target - 1, candidates.length); m >= 1 && kept.length === 0; m -= 1)
    kept = fairestBounds(candidates, below, dist.count, m);
  if (kept.length === 0) return [];

  const buckets: DerivedBucket[] = [];
  let min = niceFloor(dist.min);
  let counted = 0;
  for (const i of kept) {
    const max = NICE_LADDER[i]!;
    buckets.push({ min, max, label: bucketLabel({ min, max }), count: below[i]! - counted });
    counted = below[i]!;
    min = max;
  }
  buckets.push({ min, max: null, label: bucketLabel({ min, max: null }), count: dist.count - counted });
  return buckets;
}

/**
 * Exactly `m` bounds (ladder indexes, ascending) out of `candidates` whose buckets all hold products
 * and whose counts are nearest n/(m+1) each; [] when no m bounds keep every bucket non-empty. On a
 * tie the lower bounds win (a cluster's bucket stays tight). Candidates are at most the 48 ladder
 * values and m at most a handful, so the dynamic programme is tiny.
 */
function fairestBounds(candidates: number[], below: number[], count: number, m: number): number[] {
  const share = count / (m + 1);
  const cost = (n: number): number => (n - share) ** 2;
  const c = candidates.length;
  // best[j][i]: least cost of the first j + 1 buckets when the (j+1)-th bound is candidates[i].
  const best: number[][] = Array.from({ length: m }, () => new Array<number>(c).fill(Infinity));
  const from: number[][] = Array.from({ length: m }, () => new Array<number>(c).fill(-1));
  for (let i = 0; i < c; i += 1) best[0]![i] = cost(below[candidates[i]!]!);
  for (let j = 1; j < m; j += 1)
    for (let i = 0; i < c; i += 1)
      for (let p = 0; p < i; p += 1) {
        const between = below[candidates[i]!]! - below[candidates[p]!]!;
        if (between <= 0 || best[j - 1]![p] === Infinity) continue;
        // Neighbouring bounds at least double (no 2,000–2,500 sliver beside 1,000–2,000).
        if (NICE_LADDER[candidates[i]!]! < MIN_BOUND_RATIO * NICE_LADDER[candidates[p]!]! - 1e-9) continue;
        const total = best[j - 1]![p]! + cost(between);
        if (total < best[j]![i]!) {
          best[j]![i] = total;
          from[j]![i] = p;
        }
      }
  let last = -1;
  let least = Infinity;
  for (let i = 0; i < c; i += 1) {
    const total = best[m - 1]![i]! + cost(count - below[candidates[i]!]!);
    if (total < least) {
      least = total;
      last = i;
    }
  }
  if (last < 0) return [];
  const out: number[] = [];
  for (let j = m - 1, i = last; j >= 0; i = from[j]![i]!, j -= 1) out.unshift(candidates[i]!);
  return out;
}
