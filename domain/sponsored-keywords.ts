/**
 * One normalisation for sponsored-listing keywords and for the shopper's query they are matched
 * against: Unicode NFKC, lowercase, and every run of characters that are not letters, digits or
 * combining marks becomes one space (trimmed). So "T-Shirt", "t shirt" and "  T_SHIRT " are all
 * "t shirt", and a keyword matches a query when its words occur in the query as whole words in order.
 */
const SEPARATORS = /[^\p{L}\p{N}\p{M}]+/gu;

export function normaliseSearchText(value: string): string {
  return value.normalize('NFKC').toLowerCase().replace(SEPARATORS, ' ').trim();
}

/** Whether `keyword` (normalised) occurs as whole word(s) in `query` (normalised). */
export function keywordMatches(keyword: string, query: string): boolean {
  return ` ${query} `.includes(` ${keyword} `);
}
