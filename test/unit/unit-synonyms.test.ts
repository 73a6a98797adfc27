/**
 * The built-in unit synonyms and how a store's rules merge with them (search/unit-synonyms.ts): the
 * built-ins are in every map, a store rule for a built-in term replaces that term's built-in mapping
 * (an inactive one turns it off), and the map is sorted. What Meilisearch then finds is checked
 * against it in test/api/built-in-synonyms.test.ts.
 */
import { expect } from 'chai';
import { BUILT_IN_UNIT_SYNONYMS, builtInSynonymStates, mergeSynonyms, ruleKeys, type StoreSynonymRule } from '../../search/unit-synonyms';

const rule = (id: string, type: 'MULTI_WAY' | 'ONE_WAY', input: string | null, terms: string[], isActive = true): StoreSynonymRule => ({
  id,
  type,
  input,
  terms,
  isActive,
});

describe('built-in unit synonyms', () => {
  it('give every store the unit groups, and inch finds "in" one way only', () => {
    const map = mergeSynonyms([]);
    expect(map.gallon).to.deep.equal(['gal', 'gallons']);
    expect(map.gal).to.deep.equal(['gallon', 'gallons']);
    expect(map.oz).to.deep.equal(['ounce', 'ounces']);
    expect(map.lbs).to.deep.equal(['lb', 'pound', 'pounds']);
    expect(map.millimeter).to.include('mm');
    expect(map.ft).to.deep.equal(['feet', 'foot']);
    expect(map.inch).to.deep.equal(['in', 'inches']);
    expect(map.inches).to.deep.equal(['in', 'inch']);
    expect(map).not.to.have.property('in');
    expect(
      Object.values(map)
        .flat()
        .every((t) => /^[a-z]+$/.test(t)),
    ).to.equal(true);
  });

  it('keep the map sorted by key and value, the same for the same rules', () => {
    const map = mergeSynonyms([rule('r1', 'MULTI_WAY', null, ['sofa', 'couch'])]);
    const keys = Object.keys(map);
    expect(keys).to.deep.equal([...keys].sort());
    for (const values of Object.values(map)) expect(values).to.deep.equal([...values].sort());
    expect(JSON.stringify(mergeSynonyms([rule('r1', 'MULTI_WAY', null, ['sofa', 'couch'])]))).to.equal(JSON.stringify(map));
    expect(map.couch).to.deep.equal(['sofa']);
  });

  it("let a store rule for a built-in term replace that term's mapping, leaving the group's other terms", () => {
    const map = mergeSynonyms([rule('r1', 'ONE_WAY', 'gallon', ['paint can'])]);
    expect(map.gallon).to.deep.equal(['paint can']);
    expect(map.gal).to.deep.equal(['gallon', 'gallons']);
    expect(map.gallons).to.deep.equal(['gal', 'gallon']);
    // A rule's synonyms are not terms it maps from: a one-way rule → "oz" leaves the built-in "oz".
    expect(mergeSynonyms([rule('r2', 'ONE_WAY', 'jar', ['oz'])]).oz).to.deep.equal(['ounce', 'ounces']);
    // A multi-way rule replaces the mapping of each of its terms.
    const multi = mergeSynonyms([rule('r3', 'MULTI_WAY', null, ['oz', 'ounce'])]);
    expect(multi.oz).to.deep.equal(['ounce']);
    expect(multi.ounce).to.deep.equal(['oz']);
    expect(multi.ounces).to.deep.equal(['ounce', 'oz']);
  });

  it('let an inactive store rule switch a built-in term off', () => {
    const map = mergeSynonyms([rule('r1', 'ONE_WAY', 'gallon', ['gal'], false)]);
    expect(map).not.to.have.property('gallon');
    expect(map.gal).to.deep.equal(['gallon', 'gallons']);
    const off = mergeSynonyms([rule('r2', 'MULTI_WAY', null, ['inch', 'inches'], false)]);
    expect(off).not.to.have.property('inch');
    expect(off).not.to.have.property('inches');
    expect(off.oz).to.deep.equal(['ounce', 'ounces']);
  });

  it('say which built-in rules store rules replace, and by which rules', () => {
    const states = builtInSynonymStates([
      rule('r1', 'ONE_WAY', 'gallon', ['gal'], false),
      rule('r2', 'MULTI_WAY', null, ['sofa', 'couch']),
      rule('r3', 'ONE_WAY', 'inch', ['in', 'inches', '"']),
    ]);
    expect(states).to.have.length(BUILT_IN_UNIT_SYNONYMS.length);
    const of = (key: string) => states.filter((s) => ruleKeys(s.rule).includes(key));
    expect(of('gallon').map((s) => [s.overriddenTerms, s.overriddenBy])).to.deep.equal([[['gallon'], ['r1']]]);
    // inch is in the inch = inches group and in the one-way inch → in rule: both name r3.
    expect(of('inch').map((s) => [s.rule.type, s.overriddenTerms, s.overriddenBy])).to.deep.equal([
      ['MULTI_WAY', ['inch'], ['r3']],
      ['ONE_WAY', ['inch'], ['r3']],
    ]);
    expect(of('oz').map((s) => s.overriddenBy)).to.deep.equal([[]]);
    expect(states.filter((s) => s.overriddenBy.length > 0)).to.have.length(3);
  });
});
