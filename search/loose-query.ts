/**
 * Looser readings of a shopper's query, for when fewer than a page of products contains every word
 * (docs/search.md, "Matching"). Each reading requires all of its own words; the run step asks for
 * all of them in one multi-search and ranks what they find by how much of the query they keep:
 *
 * 1. word forms: the same words, plurals reduced to the singular and numbers split from their units
 *    ("batteries 500ml" → "battery 500 ml"), model codes also split ("xb2060sq" → "xb 2060 sq");
 * 2. fewer words: the query with one word dropped, for every word in turn, and with two words
 *    dropped when it has four or more. A reading is scored by the weight of the words it keeps
 *    (search/query-words.ts: the product-type word weighs most, stop words nothing, numbers and
 *    units little), so "24 inch white vanity" keeps "white vanity" or "inch vanity" before "24
 *    inch white". A reading left with nothing but stop words, numbers or units is never tried.
 *
 * The looser readings never match a word's prefix and Meilisearch never corrects a typo in a word of
 * four letters or fewer (search/index-settings.ts), so "mat" finds mats, not "Material:", and
 * "snow" is not "show".
 */
import { isInformative, queryWords, singular, WORD_WEIGHT, wordKinds } from './query-words';

export type LooseStrategy = 'word_forms' | 'fewer_words';

/** One looser reading of the query. */
export interface LooseReading {
  strategy: LooseStrategy;
  /** The words sent, all required, the last one not as a prefix. */
  q: string;
  /** Words of the query this reading does not look for. */
  dropped: string[];
  /** Words this reading looks for in another form. */
  changed: Array<{ from: string; to: string }>;
  /** Weight of the words kept over the weight of the whole query (1: nothing dropped). */
  score: number;
}

/** At most this many readings are asked for (one multi-search of at most this many queries). */
export const MAX_READINGS = 8;

/** Model codes split into their letter and digit runs (xb2060sq → xb 2060 sq), the other way catalogues write them. */
const splitCode = (word: string): string =>
  /\p{L}/u.test(word) && /\d/.test(word) ? word.replace(/(\d)(\p{L})|(\p{L})(\d)/gu, '$1$3 $2$4') : word;

/** The looser readings of `q`, best first, at most MAX_READINGS; none when nothing looser makes sense. */
export function looseReadings(q: string): LooseReading[] {
  const words = queryWords(q);
  if (words.length === 0) return [];
  const kinds = wordKinds(words);
  const weights = kinds.map((k) => WORD_WEIGHT[k]);
  const whole = weights.reduce((a, b) => a + b, 0) || 1;
  const readings: LooseReading[] = [];
  const seen = new Set<string>([words.join(' ')]);
  const add = (reading: LooseReading): void => {
    if (!reading.q || seen.has(reading.q)) return;
    seen.add(reading.q);
    readings.push(reading);
  };

  // 1. Word forms: every word kept, some in another form.
  const forms = words.map((w, i) => (kinds[i] === 'stop' ? w : splitCode(singular(w))));
  const changed = words.flatMap((w, i) => (forms[i] !== w ? [{ from: w, to: forms[i]! }] : []));
  if (changed.length) add({ strategy: 'word_forms', q: forms.join(' '), dropped: [], changed, score: 0.999 });

  // 2. Fewer words: one dropped (each in turn), two dropped from longer queries; the words kept in
  // the singular (a plural such as "dresses" is too far from "dress" for a typo).
  const singulars = words.map((w, i) => (kinds[i] === 'stop' ? w : singular(w)));
  const keptReading = (drop: number[]): void => {
    const keptIndexes = words.map((_, i) => i).filter((i) => !drop.includes(i));
    if (!keptIndexes.some((i) => isInformative(words[i]!, kinds[i]!))) return;
    const score = keptIndexes.reduce((sum, i) => sum + weights[i]!, 0) / whole;
    add({
      strategy: 'fewer_words',
      q: keptIndexes.map((i) => singulars[i]!).join(' '),
      dropped: drop.map((i) => words[i]!),
      changed: keptIndexes.flatMap((i) => (singulars[i] !== words[i] ? [{ from: words[i]!, to: singulars[i]! }] : [])),
      score,
    });
  };
  if (words.length > 1) {
    for (let i = 0; i < words.length; i += 1) keptReading([i]);
    if (words.length >= 4) for (let i = 0; i < words.length; i += 1) for (let j = i + 1; j < words.length; j += 1) keptReading([i, j]);
  }
  // Best first: more of the query kept; then fewer words dropped; then the order generated.
  return readings
    .map((reading, order) => ({ reading, order }))
    .sort((a, b) => b.reading.score - a.reading.score || a.reading.dropped.length - b.reading.dropped.length || a.order - b.order)
    .slice(0, MAX_READINGS)
    .map(({ reading }) => reading);
}
