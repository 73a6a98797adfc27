/**
 * Looser forms of a shopper's query, tried in order when the strict pass finds nothing:
 * 1. word forms: numbers split from their units ("500ml" → "500 ml", "4pack" → "4 pack"), joined
 *    units where the catalog may write them together ("500 ml" also tried as "500ml"), English
 *    plurals reduced to the singular ("batteries" → "battery", "boxes" → "box"), punctuation and
 *    hyphens turned into spaces;
 * 2. fewer words: Meilisearch's `frequency` matching strategy, which drops the most common words
 *    of the query first until something matches (only for queries of two words or more).
 * Meilisearch already tolerates typos and matches the last word as a prefix in the strict pass.
 */

export type LooseStrategy = 'word_forms' | 'fewer_words';

export interface LooseAttempt {
  strategy: LooseStrategy;
  q: string;
  matchingStrategy: 'all' | 'frequency';
}

const KEEP_AS_IS = new Set([
  'glass',
  'dress',
  'bass',
  'boss',
  'moss',
  'lens',
  'gas',
  'bus',
  'plus',
  'news',
  'series',
  'species',
  'jeans',
  'pants',
  'shorts',
  'trousers',
  'leggings',
  'glasses',
  'scissors',
  'tights',
  'headphones',
  'earphones',
  'sunglasses',
  'sneakers',
  'clothes',
  'kids',
  'mens',
  'womens',
  'this',
  'is',
  'was',
  'has',
  'yes',
  'us',
  'its',
]);

/** The English singular of a word (conservative: only common regular plurals). */
export function singular(word: string): string {
  const w = word.toLowerCase();
  if (w.length < 4 || KEEP_AS_IS.has(w) || /\d/.test(w)) return word;
  if (w.endsWith('ies') && w.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(w)) return word.slice(0, -2);
  if (w.endsWith('ves') && w.length > 4) return `${word.slice(0, -3)}f`;
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return word.slice(0, -1);
  return word;
}

/** Splits numbers from letters and reduces plurals; punctuation becomes spaces. */
export function wordForms(q: string): string {
  const words = q
    .normalize('NFKC')
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/(\d)(\p{L})/gu, '$1 $2')
    .replace(/(\p{L})(\d)/gu, '$1 $2')
    .split(/\s+/)
    .filter(Boolean);
  return words.map(singular).join(' ');
}

/** Joins a number with the unit after it ("500 ml" → "500ml"), the other common spelling. */
function joinedUnits(q: string): string {
  return q.replace(/(\d)\s+(\p{L}{1,4})\b/gu, '$1$2');
}

/** The looser attempts for `q`, without repeats of what was already tried. */
export function looseAttempts(q: string): LooseAttempt[] {
  const strict = q.trim().replace(/\s+/g, ' ');
  const tried = new Set([strict.toLowerCase()]);
  const attempts: LooseAttempt[] = [];
  const forms = wordForms(strict);
  for (const candidate of [forms, joinedUnits(forms)]) {
    if (candidate && !tried.has(candidate.toLowerCase())) {
      tried.add(candidate.toLowerCase());
      attempts.push({ strategy: 'word_forms', q: candidate, matchingStrategy: 'all' });
    }
  }
  const base = forms || strict;
  if (base.split(' ').length > 1) attempts.push({ strategy: 'fewer_words', q: base, matchingStrategy: 'frequency' });
  return attempts;
}
