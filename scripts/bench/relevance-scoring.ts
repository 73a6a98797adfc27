/**
 * The relevance benchmark's scoring (docs/benchmarks.md, "Relevance"): the gain of a label, nDCG@k,
 * precision@1, and the plain BM25 baseline it compares our search with. Pure functions, no I/O, so
 * the unit test (test/unit/relevance-scoring.test.ts) checks them against hand-computed values.
 *
 * Conventions (/work/shared/relevance/README.md): labels 1 (irrelevant) … 4 (perfect) give the gain
 * 2^(label − 1) − 1, i.e. 0, 1, 3, 7; a product not labelled for the query gains 0; the ideal ranking
 * is that query's labels sorted, highest first.
 */

/** Gain of a label: 2^(label − 1) − 1 (1 → 0, 2 → 1, 3 → 3, 4 → 7); no label (undefined) → 0. */
export function gainOf(label: number | undefined): number {
  if (label === undefined || !Number.isFinite(label)) return 0;
  return 2 ** (label - 1) - 1;
}

/** DCG of the gains in rank order, the first `k`: Σ gain_i / log2(i + 1), i from 1. */
export function dcg(gains: readonly number[], k: number): number {
  let sum = 0;
  for (let i = 0; i < Math.min(k, gains.length); i += 1) sum += gains[i]! / Math.log2(i + 2);
  return sum;
}

/**
 * nDCG@k of a ranking: `ranked` are the labels of the results in order (undefined: not labelled for
 * the query, gain 0); `judged` are all labels given for the query (the ideal ranking is them sorted,
 * highest first). A query whose ideal DCG is 0 (every label 1, or none) scores 0.
 */
export function ndcgAt(ranked: ReadonlyArray<number | undefined>, judged: readonly number[], k = 10): number {
  const ideal = dcg(
    judged.map(gainOf).sort((a, b) => b - a),
    k,
  );
  if (ideal <= 0) return 0;
  return dcg(ranked.map(gainOf), k) / ideal;
}

/**
 * Precision@1: 1 when the first result carries the highest label given for the query, else 0 (no
 * result, or a first result that is unlabelled or labelled lower).
 */
export function precisionAt1(ranked: ReadonlyArray<number | undefined>, judged: readonly number[]): number {
  if (ranked.length === 0 || judged.length === 0) return 0;
  const first = ranked[0];
  return first !== undefined && first === Math.max(...judged) ? 1 : 0;
}

/** Lowercase tokens of letters and digits (Unicode letters and numbers; everything else separates). */
export function tokenise(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export interface Bm25Options {
  k1: number;
  b: number;
}

export const BM25_DEFAULTS: Bm25Options = { k1: 1.2, b: 0.75 };

/** A document of the baseline: its id, its title (counted twice) and description. */
export interface Bm25Document {
  id: string;
  title: string;
  description: string;
}

/**
 * Plain BM25 over title (counted twice) + description, OR semantics (a document matching any query
 * word is a result). idf = ln(1 + (N − df + 0.5) / (df + 0.5)) (the non-negative form Lucene uses);
 * each distinct query word counts once; ties go to the lower document position (the order given).
 */
export class Bm25Index {
  private readonly postings = new Map<string, Array<{ doc: number; tf: number }>>();
  private readonly lengths: number[] = [];
  private readonly ids: string[] = [];
  private readonly avgLength: number;

  constructor(
    documents: readonly Bm25Document[],
    private readonly options: Bm25Options = BM25_DEFAULTS,
  ) {
    let total = 0;
    documents.forEach((document, doc) => {
      const title = tokenise(document.title);
      const tokens = [...title, ...title, ...tokenise(document.description)];
      this.ids.push(document.id);
      this.lengths.push(tokens.length);
      total += tokens.length;
      const tf = new Map<string, number>();
      for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
      for (const [token, count] of tf) {
        let list = this.postings.get(token);
        if (!list) this.postings.set(token, (list = []));
        list.push({ doc, tf: count });
      }
    });
    this.avgLength = documents.length > 0 ? total / documents.length : 0;
  }

  get size(): number {
    return this.ids.length;
  }

  /** idf of a token: ln(1 + (N − df + 0.5) / (df + 0.5)). */
  idf(token: string): number {
    const df = this.postings.get(token)?.length ?? 0;
    return Math.log(1 + (this.ids.length - df + 0.5) / (df + 0.5));
  }

  /** The matching documents' ids with their scores, best first, the first `limit`. */
  search(query: string, limit = 10): Array<{ id: string; score: number }> {
    const { k1, b } = this.options;
    const scores = new Map<number, number>();
    for (const token of new Set(tokenise(query))) {
      const list = this.postings.get(token);
      if (!list) continue;
      const idf = this.idf(token);
      for (const { doc, tf } of list) {
        const norm = k1 * (1 - b + (b * this.lengths[doc]!) / this.avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * (tf * (k1 + 1))) / (tf + norm));
      }
    }
    return [...scores.entries()]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, limit)
      .map(([doc, score]) => ({ id: this.ids[doc]!, score }));
  }
}

/** Arithmetic mean; NaN for an empty list. */
export const mean = (values: readonly number[]): number =>
  values.length === 0 ? NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
