/**
 * Search-as-you-type suggestions: products from the store's index (the last word matched as a
 * prefix, typos tolerated, only the fields a dropdown shows), and the store's categories and brands
 * matched in process from the cached store profile (every query word must start a word of the name,
 * or be one typo away from a word of five letters or more).
 */
import type { StoreProfile, LexiconEntry } from './store-profile';
import { lexiconWords } from './store-profile';

export interface SuggestParams {
  storeId: string;
  q: string;
  limit: number;
  locale?: string;
}

export interface SuggestAnswer {
  q: string;
  products: Array<{
    id: string;
    slug: string;
    title: string;
    imageUrl: string | null;
    brand: string | null;
    price?: number;
    currency?: string;
  }>;
  categories: Array<{ id: string; name: string; slug: string }>;
  brands: Array<{ id: string; name: string; slug: string }>;
}

/** Whether `a` and `b` are at most one edit apart (insertion, deletion, substitution or adjacent swap). */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** How well a name matches the typed words: 3 exact word, 2 prefix, 1 typo; 0 when a word does not match. */
function matchScore(entry: LexiconEntry, typed: string[]): number {
  let score = 0;
  for (const [index, word] of typed.entries()) {
    const last = index === typed.length - 1;
    let best = 0;
    for (const candidate of entry.words) {
      if (candidate === word) best = 3;
      else if (last && candidate.startsWith(word)) best = Math.max(best, 2);
      else if (word.length >= 5 && (withinOneEdit(candidate, word) || (last && withinOneEdit(candidate.slice(0, word.length), word))))
        best = Math.max(best, 1);
    }
    if (best === 0) return 0;
    score += best;
  }
  return score;
}

/** The categories and brands of the store whose names match what was typed, best first. */
export function matchLexicon(profile: StoreProfile, q: string, limit: number): Pick<SuggestAnswer, 'categories' | 'brands'> {
  const typed = lexiconWords(q);
  const ranked = (kind: LexiconEntry['kind']): Array<{ id: string; name: string; slug: string }> =>
    typed.length === 0
      ? []
      : profile.lexicon
          .filter((e) => e.kind === kind)
          .map((entry) => ({ entry, score: matchScore(entry, typed) }))
          .filter((m) => m.score > 0)
          .sort((a, b) => b.score - a.score || a.entry.name.length - b.entry.name.length || a.entry.name.localeCompare(b.entry.name))
          .slice(0, limit)
          .map(({ entry }) => ({ id: entry.id, name: entry.name, slug: entry.slug }));
  return { categories: ranked('category'), brands: ranked('brand') };
}
