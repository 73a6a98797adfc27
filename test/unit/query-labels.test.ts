/**
 * The query rewrite behind the "without synonyms" label (api/search-synonyms/query-labels.ts): words
 * that trigger a synonym rule become one-word phrases, which Meilisearch never expands; the rest is
 * left as typed. Whether Meilisearch indeed leaves phrases alone is checked against it in
 * test/api/zero-result-queries.test.ts.
 */
import { expect } from 'chai';
import { foldedWords, withoutSynonyms } from '../../api/search-synonyms/query-labels';

describe('query labels: the query without synonyms', () => {
  const triggers = new Set(['stove', 'big', 'tent', 'cafe']);

  it('quotes each word that triggers a rule, also a word of a multi-word trigger, and keeps the others', () => {
    expect(withoutSynonyms('gas stove', triggers)).to.equal('gas "stove"');
    expect(withoutSynonyms('big tent', triggers)).to.equal('"big" "tent"');
    expect(withoutSynonyms('Camping TENT', triggers)).to.equal('Camping "TENT"');
  });

  it('answers undefined when no word triggers a rule (the plain search already says it)', () => {
    expect(withoutSynonyms('yoga mat', triggers)).to.equal(undefined);
    expect(withoutSynonyms('stoves', triggers)).to.equal(undefined);
    expect(withoutSynonyms('', triggers)).to.equal(undefined);
  });

  it('compares with case and accents folded, and never lets a typed quote through', () => {
    expect(withoutSynonyms('Café crème', triggers)).to.equal('"Café" crème');
    expect(withoutSynonyms('"stove', triggers)).to.equal('"stove"');
    expect(withoutSynonyms('stove"" gas', triggers)).to.equal('"stove" gas');
    expect(foldedWords('Crème-Brûlée  ÉTÉ')).to.deep.equal(['creme', 'brulee', 'ete']);
  });
});
