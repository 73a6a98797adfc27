/**
 * The built-in unit-of-measure synonyms every store's index gets, and how a store's own rules merge
 * with them (docs/search.md, "Built-in unit synonyms").
 *
 * Terms are written as Meilisearch indexes them: lowercase words, punctuation dropped. It turns
 * `24 in.` into the words `24` `in`, `1 gal.` into `1` `gal`, and drops `"` altogether (`24"` is just
 * `24`), so `in.` or `"` would never be a term of their own.
 *
 * Most units are full groups (each term finds what any other finds). The inch is not: its
 * abbreviation `in` is one of the commonest words, so `inch` and `inches` find `in` (a title with
 * "24 in.") one way only, and `in` never finds "inch".
 */

export type BuiltInSynonymRule =
  { type: 'MULTI_WAY'; terms: readonly string[] } | { type: 'ONE_WAY'; input: string; synonyms: readonly string[] };

export const BUILT_IN_UNIT_SYNONYMS: readonly BuiltInSynonymRule[] = [
  { type: 'MULTI_WAY', terms: ['inch', 'inches'] },
  { type: 'ONE_WAY', input: 'inch', synonyms: ['in'] },
  { type: 'ONE_WAY', input: 'inches', synonyms: ['in'] },
  { type: 'MULTI_WAY', terms: ['ft', 'foot', 'feet'] },
  { type: 'MULTI_WAY', terms: ['yd', 'yds', 'yard', 'yards'] },
  { type: 'MULTI_WAY', terms: ['mm', 'millimetre', 'millimetres', 'millimeter', 'millimeters'] },
  { type: 'MULTI_WAY', terms: ['cm', 'centimetre', 'centimetres', 'centimeter', 'centimeters'] },
  { type: 'MULTI_WAY', terms: ['ml', 'millilitre', 'millilitres', 'milliliter', 'milliliters'] },
  { type: 'MULTI_WAY', terms: ['qt', 'qts', 'quart', 'quarts'] },
  { type: 'MULTI_WAY', terms: ['gal', 'gallon', 'gallons'] },
  { type: 'MULTI_WAY', terms: ['oz', 'ounce', 'ounces'] },
  { type: 'MULTI_WAY', terms: ['lb', 'lbs', 'pound', 'pounds'] },
  { type: 'MULTI_WAY', terms: ['kg', 'kgs', 'kilogram', 'kilograms', 'kilo', 'kilos'] },
];

/** A synonym rule as stored for a store (`search_synonyms`: a ONE_WAY rule's synonyms are its `terms`). */
export interface StoreSynonymRule {
  id: string;
  type: string;
  input: string | null;
  terms: string[];
  isActive: boolean;
}

/** The terms a rule maps from, the keys it writes into the synonyms map: a ONE_WAY rule's input, every term of a MULTI_WAY one. */
export function ruleKeys(rule: BuiltInSynonymRule | StoreSynonymRule): string[] {
  if ('synonyms' in rule) return [rule.input];
  if (rule.type === 'ONE_WAY') return rule.input === null ? [] : [rule.input];
  return [...rule.terms];
}

/** The terms a rule maps each of its keys to (a stored ONE_WAY rule keeps its synonyms in `terms`). */
const ruleTargets = (rule: BuiltInSynonymRule | StoreSynonymRule): readonly string[] => ('synonyms' in rule ? rule.synonyms : rule.terms);

/**
 * Meilisearch's synonyms map: the built-in rules first, then the store's. Every term a store rule
 * maps from (a ONE_WAY input, any MULTI_WAY term), active or not, replaces the built-in mapping of
 * that term, so a merchant overrides a built-in by writing a rule for the term and turns it off by
 * deactivating that rule; only active store rules add mappings. Terms shared by several rules get
 * the union of their equivalents; keys and values are sorted so the map is stable (settingsMatch).
 */
export function mergeSynonyms(
  storeRules: readonly StoreSynonymRule[],
  builtIns: readonly BuiltInSynonymRule[] = BUILT_IN_UNIT_SYNONYMS,
): Record<string, string[]> {
  const replaced = new Set(storeRules.flatMap(ruleKeys));
  const map = new Map<string, Set<string>>();
  const add = (rule: BuiltInSynonymRule | StoreSynonymRule, skip: ReadonlySet<string>): void => {
    const to = ruleTargets(rule);
    for (const from of ruleKeys(rule)) {
      if (skip.has(from)) continue;
      const set = map.get(from) ?? new Set<string>();
      for (const t of to) if (t !== from) set.add(t);
      if (set.size > 0) map.set(from, set);
    }
  };
  for (const rule of builtIns) add(rule, replaced);
  const none = new Set<string>();
  for (const rule of storeRules) if (rule.isActive) add(rule, none);
  return Object.fromEntries([...map.keys()].sort().map((k) => [k, [...map.get(k)!].sort()]));
}

/** One built-in rule with the store rules that replace some of its terms (none: wholly in force). */
export interface BuiltInSynonymState {
  rule: BuiltInSynonymRule;
  /** The built-in's terms that store rules replace. */
  overriddenTerms: string[];
  /** The ids of those store rules, in the order given. */
  overriddenBy: string[];
}

export function builtInSynonymStates(
  storeRules: readonly StoreSynonymRule[],
  builtIns: readonly BuiltInSynonymRule[] = BUILT_IN_UNIT_SYNONYMS,
): BuiltInSynonymState[] {
  return builtIns.map((rule) => {
    const keys = new Set(ruleKeys(rule));
    const by = storeRules.filter((r) => ruleKeys(r).some((k) => keys.has(k)));
    const terms = new Set(by.flatMap(ruleKeys).filter((k) => keys.has(k)));
    return { rule, overriddenTerms: ruleKeys(rule).filter((k) => terms.has(k)), overriddenBy: by.map((r) => r.id) };
  });
}
