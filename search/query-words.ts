/**
 * The words of a shopper's query as the looser search passes see them (docs/search.md, "Matching"):
 * split the way catalogues write product facts, classified by how much each word says about the
 * product wanted, and reduced to the singular where that is safe.
 *
 * - Numbers stay whole with their decimal point, fraction bar, range hyphen or dimension `x`
 *   (`18.5`, `3/4`, `1-1/2`, `2x4`); a number glued to a unit is split from it (`500ml` → `500 ml`)
 *   but a model code is kept whole (`m8`, `xb2060sq`).
 * - Stop words ("the", "for", "with") say nothing on their own; numbers and units ("24", "inch",
 *   "oz") say little without the product they measure; the product-type word, usually the last
 *   content word of an English product query ("24 inch white vanity"), says the most.
 * - Singulars: only regular English plurals, never a word that merely ends in s ("texas", "glass",
 *   "jeans"), and the -ves plurals of a short list ("knives" → "knife"); everything else becomes
 *   its stem with -s dropped ("gloves" → "glove", not "glof").
 */

/** English words that never narrow a product search on their own. */
export const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'for',
  'of',
  'with',
  'without',
  'to',
  'in',
  'on',
  'by',
  'at',
  'from',
  'as',
  'is',
  'it',
  'my',
  'your',
  '&',
  '+',
]);

/**
 * Units of measure and pack sizes, spelled out and abbreviated (the spellings the built-in unit
 * synonyms make equivalent: search/unit-synonyms.ts).
 */
export const UNIT_WORDS = new Set([
  'inch',
  'inches',
  'in',
  'ft',
  'feet',
  'foot',
  'yd',
  'yard',
  'yards',
  'mm',
  'cm',
  'm',
  'millimetre',
  'millimetres',
  'millimeter',
  'millimeters',
  'centimetre',
  'centimetres',
  'centimeter',
  'centimeters',
  'metre',
  'metres',
  'meter',
  'meters',
  'ml',
  'l',
  'litre',
  'litres',
  'liter',
  'liters',
  'cl',
  'gal',
  'gallon',
  'gallons',
  'qt',
  'quart',
  'quarts',
  'oz',
  'ounce',
  'ounces',
  'lb',
  'lbs',
  'pound',
  'pounds',
  'g',
  'gram',
  'grams',
  'kg',
  'mg',
  'gb',
  'tb',
  'mb',
  'v',
  'w',
  'mah',
  'pack',
  'pk',
  'pc',
  'pcs',
  'piece',
  'pieces',
  'ct',
  'count',
  'x',
]);

/** -ves plurals whose singular ends in -f or -fe; every other -ves plural drops just the s. */
const F_PLURALS: Record<string, string> = {
  knives: 'knife',
  wives: 'wife',
  lives: 'life',
  leaves: 'leaf',
  shelves: 'shelf',
  halves: 'half',
  wolves: 'wolf',
  loaves: 'loaf',
  scarves: 'scarf',
  calves: 'calf',
  thieves: 'thief',
  hooves: 'hoof',
  elves: 'elf',
};

/** Words ending in s that are not plurals, or plurals shoppers use as the product's name. */
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
  'pliers',
  'tongs',
  'headphones',
  'earphones',
  'sunglasses',
  'goggles',
  'binoculars',
  'sneakers',
  'clothes',
  'kids',
  'mens',
  'womens',
  'this',
  'was',
  'has',
  'yes',
  'its',
  'texas',
  'kansas',
  'paris',
  'atlas',
  'canvas',
  'christmas',
  'always',
  'various',
]);

/** The English singular of a word (conservative: regular plurals only; see the module comment). */
export function singular(word: string): string {
  const w = word.toLowerCase();
  if (w.length < 4 || KEEP_AS_IS.has(w) || /\d/.test(w)) return word;
  if (F_PLURALS[w]) return F_PLURALS[w];
  if (/(?:as|is|us|ss|os|ys)$/.test(w)) return word;
  if (w.endsWith('ies') && w.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(w)) return word.slice(0, -2);
  if (w.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** Numbers as catalogues write them: 18.5, 3/4, 1-1/2, 2x4, 1,000. */
const NUMBER = String.raw`\d+(?:[.,/x-]\d+)*`;
const TOKEN = new RegExp(String.raw`${NUMBER}|[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)?|["”″]|[&+]`, 'gu');

/** The query's words, lowercase, in order (punctuation dropped, a number's inch mark read as "in"). */
export function queryWords(q: string): string[] {
  const words: string[] = [];
  for (const [token] of q.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    if (token === '"' || token === '”' || token === '″') {
      // 24" is 24 inches; a quote elsewhere is punctuation.
      if (words.length && /^\d/.test(words[words.length - 1]!)) words.push('in');
      continue;
    }
    // A number glued to a unit is two words (500ml → 500 ml); a model code stays whole (m8, xb2060sq).
    const glued = /^(\d+(?:[.,]\d+)?)(\p{L}+)$/u.exec(token);
    if (glued && UNIT_WORDS.has(glued[2]!)) words.push(glued[1]!, glued[2]!);
    else words.push(token.replace(/['’]s$/u, '').replace(/['’]/gu, ''));
  }
  return words.filter(Boolean);
}

export type WordKind = 'stop' | 'measure' | 'product' | 'descriptive';

const WHOLE_NUMBER = new RegExp(`^${NUMBER}$`);
export const isNumber = (word: string): boolean => WHOLE_NUMBER.test(word);

/**
 * What each word of the query says about the product wanted (see the module comment): the last
 * content word is taken for the product word ("24 inch white vanity"). Tried against a rule that
 * stops at a preposition ("bike for children" → bike): the relevance benchmark scored it lower.
 */
export function wordKinds(words: string[]): WordKind[] {
  const kinds: WordKind[] = words.map((w) => (STOP_WORDS.has(w) ? 'stop' : isNumber(w) || UNIT_WORDS.has(w) ? 'measure' : 'descriptive'));
  const head = kinds.lastIndexOf('descriptive');
  if (head >= 0) kinds[head] = 'product';
  return kinds;
}

/** How much a word of each kind weighs when the looser passes compare what a rewrite keeps. */
export const WORD_WEIGHT: Record<WordKind, number> = { stop: 0, measure: 0.3, descriptive: 1, product: 1.5 };

/** Whether a word can make a product match on its own (not a stop word, a bare number or unit, or a single letter). */
export const isInformative = (word: string, kind: WordKind): boolean =>
  (kind === 'descriptive' || kind === 'product') && [...word].length > 1;
