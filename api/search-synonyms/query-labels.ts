/**
 * What answers a listed zero-result or weak-result query now, measured against the store's current
 * search index (docs/search.md, "Zero-result and weak-result queries"):
 *
 * - answeredNow: published products match every word of the query, with the store's synonyms as they
 *   are: the strict pass of the public search, with its words (strictWords: a short last word matched
 *   whole) and matching strategy `all`.
 * - answeredBy: PRODUCT when products match every word without the synonyms too; SYNONYM when they
 *   match only through a synonym (without the rules nothing is found); null when not answered.
 * - answeredLoosely: not answered strictly, but one of the public search's looser readings of it
 *   (search/loose-query.ts: other word forms, fewer words) finds something: a weak result.
 *
 * Meilisearch cannot switch synonyms off for one search, so "without synonyms" is asked with the query
 * rewritten: every word that is a word of a synonym rule's trigger (a key of the store's synonyms map,
 * search/index-settings.ts storeSynonyms; accents and case folded) is sent as a one-word phrase
 * (`"stove"`), which Meilisearch matches literally and never expands with synonyms (checked against
 * Meilisearch by test/api/zero-result-queries.test.ts). Splitting a multi-word trigger into one phrase
 * per word also keeps the multi-word rule from applying. A query none of whose words triggers a rule
 * is answered without synonyms exactly when it is answered, so it costs no extra search. Because a
 * phrase is matched literally, such a word loses typo tolerance and prefix matching in that check: a
 * product that matches only a misspelt or longer form of a synonym-bearing word ("stoves" for
 * "stove") counts as the synonym's answer.
 *
 * Cost: two Meilisearch multi-searches for the whole list (at most ZERO_RESULT_LIST_CAP queries), each
 * search asking for one id of a published product: first, per query, the strict search and, when a
 * word triggers a rule, the rewritten one; then the looser readings of the queries not answered
 * strictly (at most MAX_READINGS each), skipped when every query is answered.
 */
import type { RequestContext } from '../../storage/request-context';
import { servicesOf } from '../../storage/request-context';
import { MeiliResponseError } from '../../search/search-transport';
import { storeIndexUid } from '../../search/index-names';
import { storeSynonyms } from '../../search/index-settings';
import { completeWords, strictWords } from '../../search/public-search-request';
import { looseReadings } from '../../search/loose-query';

export type AnsweredBy = 'SYNONYM' | 'PRODUCT';

export interface QueryLabel {
  answeredNow: boolean | null;
  answeredBy: AnsweredBy | null;
  answeredLoosely: boolean | null;
}

/** Words as compared with synonym triggers: NFKC, case and accents folded, split on anything but letters and digits. */
export const foldedWords = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Words of the query as Meilisearch should read them without synonyms, or undefined when no word triggers a synonym rule. */
export function withoutSynonyms(query: string, triggerWords: ReadonlySet<string>): string | undefined {
  const parts = query
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter(Boolean);
  let touched = false;
  const rewritten = parts.map((part) => {
    if (!foldedWords(part).some((word) => triggerWords.has(word))) return part;
    touched = true;
    return `"${part}"`;
  });
  return touched ? rewritten.join(' ') : undefined;
}

const UNKNOWN: QueryLabel = { answeredNow: null, answeredBy: null, answeredLoosely: null };
const NOTHING: QueryLabel = { answeredNow: false, answeredBy: null, answeredLoosely: false };

class IndexMissing extends Error {}

/** The label of each query, in order; all unknown (null) when Meilisearch cannot answer, all unanswered when the store has no index. */
export async function labelQueries(ctx: RequestContext, storeId: string, queries: string[]): Promise<QueryLabel[]> {
  if (queries.length === 0) return [];
  const synonyms = await storeSynonyms(ctx.manager, storeId);
  const triggerWords = new Set(Object.keys(synonyms).flatMap(foldedWords));
  const indexUid = storeIndexUid(storeId);
  const search = (q: string) => ({
    indexUid,
    q,
    limit: 1,
    filter: 'status = "PUBLISHED"',
    attributesToRetrieve: ['id'],
    matchingStrategy: 'all' as const,
  });
  // The process's search-only connection (the storefront search's, with its derived key).
  const found = async (qs: string[]): Promise<boolean[]> => {
    if (qs.length === 0) return [];
    try {
      const response = await servicesOf(ctx).meiliSearch.multiSearch<{ hits: unknown[] }>({ queries: qs.map(search) });
      return response.results.map((result) => result.hits.length > 0);
    } catch (error) {
      if (error instanceof MeiliResponseError && error.code === 'index_not_found') throw new IndexMissing();
      throw error;
    }
  };
  const plans = queries.map((q) => ({ q, literal: withoutSynonyms(q, triggerWords) }));
  try {
    // First request: per query the strict search (the public search's words) and, where a word triggers a rule, the same without synonyms.
    const strict = await found(
      plans.flatMap(({ q, literal }) => [strictWords(q), ...(literal === undefined ? [] : [strictWords(literal)])]),
    );
    let at = 0;
    const measured = plans.map(({ literal }) => {
      const withRules = strict[at++]!;
      const withoutRules = literal === undefined ? withRules : strict[at++]!;
      return { answered: withRules || withoutRules, byProducts: withoutRules };
    });
    // Second request, only for queries not answered strictly: the public search's looser readings of them.
    const readings = plans.map(({ q }, i) => (measured[i]!.answered ? [] : looseReadings(q).map((r) => completeWords(r.q))));
    const loose = await found(readings.flat());
    at = 0;
    return measured.map(({ answered, byProducts }, i) => {
      const looseHits = loose.slice(at, (at += readings[i]!.length));
      return {
        answeredNow: answered,
        answeredBy: byProducts ? 'PRODUCT' : answered ? 'SYNONYM' : null,
        answeredLoosely: !answered && looseHits.some(Boolean),
      };
    });
  } catch (error) {
    if (error instanceof IndexMissing) return queries.map(() => NOTHING);
    servicesOf(ctx).logger.warn({ err: error, storeId }, 'search queries: Meilisearch could not say which queries are answered');
    return queries.map(() => UNKNOWN);
  }
}
