/**
 * The visual relevance benchmark's measures (docs/benchmarks.md, "Visual relevance"): where an altered
 * copy of a photo ranks its original among all photos (recall@k, MRR), what share of a photo's nearest
 * neighbours carry its label (overall and per label), the same with neighbours of the same catalog
 * category ranked first, and the label file. Pure functions, no I/O, so the unit test
 * (test/unit/vision-quality-metrics.test.ts) checks them on small vector sets with known answers.
 *
 * Vectors are L2-normalised (every embedder's output), so the dot product is the cosine similarity.
 * Ties are broken by position (the earlier photo first), so every figure is deterministic.
 */
import { parse } from 'csv-parse/sync';

export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`vectors of ${a.length} and ${b.length} dimensions`);
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

/** Indexes of `vectors` by similarity to `query`, best first (ties: lower index first), `skip` left out. */
export function rankedBySimilarity(query: Float32Array, vectors: readonly Float32Array[], skip?: number): number[] {
  const scored: Array<[number, number]> = [];
  vectors.forEach((vector, i) => {
    if (i !== skip) scored.push([i, dot(query, vector)]);
  });
  scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return scored.map(([i]) => i);
}

/** 1-based rank of `vectors[target]` for `query` among all of `vectors`. */
export function rankOf(query: Float32Array, vectors: readonly Float32Array[], target: number): number {
  const at = rankedBySimilarity(query, vectors).indexOf(target);
  if (at < 0) throw new Error(`no vector ${target} among ${vectors.length}`);
  return at + 1;
}

/** Share of the ranks at or above `k` (0 when there are none). */
export function recallAt(ranks: readonly number[], k: number): number {
  if (ranks.length === 0) return 0;
  return ranks.filter((rank) => rank <= k).length / ranks.length;
}

/** Mean of 1 / rank (0 when there are none). */
export function meanReciprocalRank(ranks: readonly number[]): number {
  if (ranks.length === 0) return 0;
  return ranks.reduce((sum, rank) => sum + 1 / rank, 0) / ranks.length;
}

export interface RetrievalFigures {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
}

export function retrievalFigures(ranks: readonly number[]): RetrievalFigures {
  return { queries: ranks.length, recallAt1: recallAt(ranks, 1), recallAt5: recallAt(ranks, 5), mrr: meanReciprocalRank(ranks) };
}

/** The `k` nearest other photos of photo `i`. */
export function nearestNeighbours(vectors: readonly Float32Array[], i: number, k: number): number[] {
  return rankedBySimilarity(vectors[i]!, vectors, i).slice(0, k);
}

/**
 * The `k` nearest other photos of photo `i` when those whose `group` equals photo i's come first
 * (each part in similarity order): the catalog's "same category first" ranking.
 */
export function nearestNeighboursGroupFirst(vectors: readonly Float32Array[], groups: readonly string[], i: number, k: number): number[] {
  return nearestNeighboursByTiers(vectors, [groups], i, k);
}

/**
 * The `k` nearest other photos of photo `i` in tiers: first those sharing its most specific group
 * (`tiers[0]`, e.g. the subcategory), then those sharing the next (`tiers[1]`, e.g. the parent
 * category: the siblings), then the rest, each tier in similarity order. This is what the similar
 * products read does with `sameCategory: prefer` (vision/query.ts), the product's category being
 * its most specific label.
 */
export function nearestNeighboursByTiers(
  vectors: readonly Float32Array[],
  tiers: ReadonlyArray<readonly string[]>,
  i: number,
  k: number,
): number[] {
  const ranked = rankedBySimilarity(vectors[i]!, vectors, i);
  const tierOf = (j: number): number => {
    const at = tiers.findIndex((groups) => groups[j] === groups[i]);
    return at === -1 ? tiers.length : at;
  };
  // A stable sort keeps the similarity order within each tier.
  return ranked
    .map((j) => ({ j, tier: tierOf(j) }))
    .sort((a, b) => a.tier - b.tier)
    .slice(0, k)
    .map(({ j }) => j);
}

export interface LabelShare {
  /** Mean over photos of the share of its neighbours that carry its label. */
  overall: number;
  /** The same mean over the photos of each label. */
  perLabel: Record<string, number>;
}

/** Mean share of `neighbours(i)` that carry photo i's label, over all photos and per label. */
export function sameLabelShare(labels: readonly string[], neighbours: (i: number) => number[]): LabelShare {
  const shares = labels.map((label, i) => {
    const near = neighbours(i);
    return near.length === 0 ? 0 : near.filter((j) => labels[j] === label).length / near.length;
  });
  const perLabel: Record<string, number> = {};
  for (const label of [...new Set(labels)].sort()) {
    const mine = shares.filter((_, i) => labels[i] === label);
    perLabel[label] = mine.reduce((sum, s) => sum + s, 0) / mine.length;
  }
  const overall = shares.length === 0 ? 0 : shares.reduce((sum, s) => sum + s, 0) / shares.length;
  return { overall, perLabel };
}

/**
 * The share a ranking that ignores the images would reach: for a photo whose label has n photos of
 * N, (n − 1) / (N − 1) of its neighbours carry it; averaged over photos.
 */
export function chanceShare(labels: readonly string[]): number {
  if (labels.length < 2) return 0;
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  const others = labels.length - 1;
  return labels.reduce((sum, label) => sum + (counts.get(label)! - 1) / others, 0) / labels.length;
}

/** The value at the p-th percentile of `values` (nearest rank); NaN when empty. */
export function percentileOf(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface LabelledPhoto {
  /** Path relative to the images folder. */
  file: string;
  category: string;
  subcategory?: string;
}

/**
 * The label file: CSV with a header naming at least `file` and `category` (`subcategory` optional,
 * other columns ignored). Throws with the line at fault for a missing column, an empty file or
 * category, a path that leaves the images folder, or a file named twice.
 */
export function parsePhotoLabels(text: string): LabelledPhoto[] {
  const records = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Array<Record<string, string>>;
  if (records.length === 0) throw new Error('the label file has no rows (expected a header with file,category[,subcategory])');
  const columns = Object.keys(records[0]!);
  for (const needed of ['file', 'category'])
    if (!columns.includes(needed)) throw new Error(`the label file has no "${needed}" column (columns: ${columns.join(', ')})`);
  const seen = new Set<string>();
  return records.map((record, n) => {
    const line = n + 2;
    const file = record.file ?? '';
    const category = record.category ?? '';
    if (!file) throw new Error(`line ${line}: empty file`);
    if (!category) throw new Error(`line ${line}: ${file} has no category`);
    if (file.startsWith('/') || file.split(/[\\/]/).includes('..'))
      throw new Error(`line ${line}: ${file} is not a path inside the images folder`);
    if (seen.has(file)) throw new Error(`line ${line}: ${file} is listed twice`);
    seen.add(file);
    const subcategory = record.subcategory || undefined;
    return subcategory ? { file, category, subcategory } : { file, category };
  });
}
