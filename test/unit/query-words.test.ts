/**
 * How the looser search passes read a shopper's words (search/query-words.ts, search/loose-query.ts),
 * on concrete product queries.
 */
import { expect } from 'chai';
import { queryWords, singular, wordKinds } from '../../search/query-words';
import { looseReadings, MAX_READINGS } from '../../search/loose-query';
import { completeWords, strictWords } from '../../search/public-search-request';
import { titleProductWords } from '../../search/product-document';

const readings = (q: string): string[] => looseReadings(q).map((r) => r.q);

describe('query words', () => {
  it('keeps numbers whole the way catalogues write them', () => {
    expect(queryWords('3/4 in. copper pipe')).to.deep.equal(['3/4', 'in', 'copper', 'pipe']);
    expect(queryWords('1-1/2 coupling')).to.deep.equal(['1-1/2', 'coupling']);
    expect(queryWords('2x4 stud')).to.deep.equal(['2x4', 'stud']);
    expect(queryWords('18.5 rope')).to.deep.equal(['18.5', 'rope']);
    expect(queryWords('1,000 pcs')).to.deep.equal(['1,000', 'pcs']);
  });

  it('splits a number from its unit but keeps model codes whole', () => {
    expect(queryWords('500ml bottle')).to.deep.equal(['500', 'ml', 'bottle']);
    expect(queryWords('500 ml bottle')).to.deep.equal(['500', 'ml', 'bottle']);
    expect(queryWords('16GB card')).to.deep.equal(['16', 'gb', 'card']);
    expect(queryWords('M8 bolt')).to.deep.equal(['m8', 'bolt']);
    expect(queryWords('XB2060SQ')).to.deep.equal(['xb2060sq']);
    expect(queryWords('6mm drill')).to.deep.equal(['6', 'mm', 'drill']);
  });

  it('reads an inch mark after a number as the unit, and drops other punctuation', () => {
    expect(queryWords('24" white vanity')).to.deep.equal(['24', 'in', 'white', 'vanity']);
    expect(queryWords('"quoted" shoes!')).to.deep.equal(['quoted', 'shoes']);
    expect(queryWords("victoria's secret")).to.deep.equal(['victoria', 'secret']);
    expect(queryWords('  ')).to.deep.equal([]);
  });

  it('reduces regular plurals only, never to a non-word', () => {
    expect(singular('batteries')).to.equal('battery');
    expect(singular('boxes')).to.equal('box');
    expect(singular('shoes')).to.equal('shoe');
    expect(singular('gloves')).to.equal('glove');
    expect(singular('knives')).to.equal('knife');
    expect(singular('shelves')).to.equal('shelf');
    expect(singular('boots')).to.equal('boot');
    for (const word of ['texas', 'glass', 'jeans', 'dress', 'bus', 'lens', 'atlas', 'christmas', 'pants', 'mat', '500s'])
      expect(singular(word), word).to.equal(word);
  });

  it('tells the product word from descriptive words, measures and stop words', () => {
    expect(wordKinds(['24', 'inch', 'white', 'vanity'])).to.deep.equal(['measure', 'measure', 'descriptive', 'product']);
    expect(wordKinds(['bike', 'for', 'children'])).to.deep.equal(['descriptive', 'stop', 'product']);
    expect(wordKinds(['over', 'the', 'knee', 'snow', 'boots'])).to.deep.equal([
      'descriptive',
      'stop',
      'descriptive',
      'descriptive',
      'product',
    ]);
    expect(wordKinds(['the', 'for'])).to.deep.equal(['stop', 'stop']);
  });
});

describe('looser readings', () => {
  it('drops one word at a time, keeping the product word before modifiers, units and numbers', () => {
    expect(readings('24 inch white vanity').slice(0, 4)).to.deep.equal([
      'inch white vanity',
      '24 white vanity',
      'white vanity',
      '24 inch vanity',
    ]);
    const yoga = looseReadings('yoga mat');
    expect(yoga.map((r) => [r.q, r.dropped])).to.deep.equal([
      ['mat', ['yoga']],
      ['yoga', ['mat']],
    ]);
  });

  it('never keeps only a unit, a number or a stop word', () => {
    for (const q of ['24 inch white vanity', 'acme automatic toilet kit', '8 ounce mason jars', 'the best of'])
      for (const reading of looseReadings(q))
        expect(
          reading.q.split(' ').some((w) => !/^(\d.*|inch|ounce|the|of)$/.test(w)),
          `${q} → ${reading.q}`,
        ).to.equal(true);
    expect(readings('the for')).to.deep.equal([]);
    expect(readings('24 inch')).to.deep.equal([]);
  });

  it('tries the singular and split model codes first, as word forms that drop nothing', () => {
    const [forms] = looseReadings('batteries 500ml');
    expect(forms).to.deep.include({
      strategy: 'word_forms',
      q: 'battery 500 ml',
      dropped: [],
      changed: [{ from: 'batteries', to: 'battery' }],
    });
    expect(looseReadings('xb2060sq')[0]).to.deep.include({ q: 'xb 2060 sq', changed: [{ from: 'xb2060sq', to: 'xb 2060 sq' }] });
    expect(readings('texas')).to.deep.equal([]);
  });

  it('offers nothing looser for one word without another form', () => {
    expect(readings('xyzzy')).to.deep.equal([]);
    expect(readings('mat')).to.deep.equal([]);
  });

  it('drops a stop word first, and pairs of words from long queries, within the bound', () => {
    expect(readings('workout clothes for women')[0]).to.equal('workout clothes women');
    const long = looseReadings('brett favre ny titans jersey blue');
    expect(long.length).to.equal(MAX_READINGS);
    expect(long.some((r) => r.dropped.length === 2)).to.equal(true);
    // Six words: every single word dropped first, then the best pairs.
    expect(long.filter((r) => r.dropped.length === 1)).to.have.length(6);
  });
});

describe('words sent to Meilisearch', () => {
  it('matches a short last word whole and a longer one also as a prefix', () => {
    expect(strictWords('yoga mat')).to.equal('yoga mat ');
    expect(strictWords('sofa')).to.equal('sofa');
    expect(strictWords(' headphon ')).to.equal('headphon');
    expect(completeWords('sofa')).to.equal('sofa ');
    expect(completeWords('  ')).to.equal('');
  });
});

describe('product words of a title', () => {
  it('takes the last word of each part of the title', () => {
    expect(titleProductWords("Men's Yellow Dress Shirt")).to.deep.equal(['shirt']);
    expect(titleProductWords('Keurig K45 Coffee Maker with 48 K-Cup Packs')).to.deep.equal(['maker', 'packs']);
    expect(titleProductWords('Samsung S860 - digital camera')).to.deep.equal(['s860', 'camera']);
    expect(titleProductWords('Oak Bathroom Vanity (White)')).to.deep.equal(['vanity', 'white']);
    expect(titleProductWords('Bike Lock for Kids, Blue')).to.deep.equal(['lock', 'kids', 'blue']);
    expect(titleProductWords('12 / 8')).to.deep.equal([]);
  });
});
