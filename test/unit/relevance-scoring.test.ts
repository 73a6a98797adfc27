/**
 * The relevance benchmark's scoring (scripts/bench/relevance-scoring.ts) against values computed by
 * hand: the gain of a label, nDCG@10, precision@1, the tokeniser and BM25 on a three-document index.
 */
import { expect } from 'chai';
import { Bm25Index, dcg, gainOf, ndcgAt, precisionAt1, tokenise } from '../../scripts/bench/relevance-scoring';

describe('relevance scoring', () => {
  it('gains 2^(label − 1) − 1: labels 1..4 → 0, 1, 3, 7; an unlabelled product 0', () => {
    expect([1, 2, 3, 4].map(gainOf)).to.deep.equal([0, 1, 3, 7]);
    expect(gainOf(undefined)).to.equal(0);
  });

  it('discounts by log2(rank + 1)', () => {
    // 7/log2(2) + 3/log2(3) + 1/log2(4) = 7 + 1.892789… + 0.5
    expect(dcg([7, 3, 1], 10)).to.be.closeTo(9.392789, 1e-6);
    expect(dcg([7, 3, 1], 1)).to.equal(7);
  });

  it('nDCG@10: the ranking against the ideal ordering of the query’s labels', () => {
    // Results labelled 3, unlabelled, 4; the query's labels are 4, 3, 2, 1.
    // DCG = 3/1 + 0/log2(3) + 7/2 = 6.5; ideal = 7/1 + 3/log2(3) + 1/2 + 0 = 9.392789…; 6.5 / 9.392789 = 0.692020…
    expect(ndcgAt([3, undefined, 4], [4, 3, 2, 1], 10)).to.be.closeTo(0.69202, 1e-5);
    // The ideal ranking scores 1; nothing found scores 0.
    expect(ndcgAt([4, 3, 2, 1], [1, 2, 3, 4], 10)).to.equal(1);
    expect(ndcgAt([], [4, 3], 10)).to.equal(0);
    // Only the first 10 count: the perfect product at rank 11 adds nothing (DCG 0 of ideal 7).
    expect(ndcgAt([...Array(10).fill(undefined), 4], [4], 10)).to.equal(0);
    // A query whose labels are all 1 has an ideal DCG of 0 and scores 0.
    expect(ndcgAt([1, 1], [1, 1], 10)).to.equal(0);
  });

  it('precision@1: the first hit carries the highest label given for the query', () => {
    expect(precisionAt1([4, 1], [4, 3, 1])).to.equal(1);
    expect(precisionAt1([3, 4], [4, 3])).to.equal(0);
    expect(precisionAt1([3], [3, 2, 1])).to.equal(1);
    expect(precisionAt1([undefined, 4], [4])).to.equal(0);
    expect(precisionAt1([], [4])).to.equal(0);
  });

  it('tokenises into lowercase runs of letters and digits', () => {
    expect(tokenise("Dr. Who's 3-Pack LANYARD, 2015!")).to.deep.equal(['dr', 'who', 's', '3', 'pack', 'lanyard', '2015']);
    expect(tokenise('Crème Brûlée <p>set</p>')).to.deep.equal(['crème', 'brûlée', 'p', 'set', 'p']);
    expect(tokenise(' -- ')).to.deep.equal([]);
  });

  describe('BM25 (k1 1.2, b 0.75, title twice + description, OR semantics)', () => {
    // Token counts: a = red shoe red shoe (4), b = blue shoe blue shoe red laces (6), c = hat hat (2); average 4.
    const index = new Bm25Index([
      { id: 'a', title: 'Red shoe', description: '' },
      { id: 'b', title: 'Blue shoe', description: 'red laces' },
      { id: 'c', title: 'Hat', description: '' },
    ]);

    it('idf = ln(1 + (N − df + 0.5) / (df + 0.5))', () => {
      expect(index.idf('red')).to.be.closeTo(Math.log(1.6), 1e-12); // df 2: ln(1 + 1.5/2.5)
      expect(index.idf('hat')).to.be.closeTo(Math.log(1 + 2.5 / 1.5), 1e-12); // df 1: ln 2.6667 = 0.980829
    });

    it('scores tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avg)) · idf, best first', () => {
      // red: a tf 2, len 4 → 2·2.2/(2 + 1.2) = 1.375 · 0.470004 = 0.646255;
      //      b tf 1, len 6 → 2.2/(1 + 1.65) = 0.830189 · 0.470004 = 0.390192; c does not match.
      const red = index.search('red');
      expect(red.map((hit) => hit.id)).to.deep.equal(['a', 'b']);
      expect(red[0]!.score).to.be.closeTo(0.646255, 1e-6);
      expect(red[1]!.score).to.be.closeTo(0.390192, 1e-6);
    });

    it('sums over the query words; any word matching is enough (OR)', () => {
      // hat: c tf 2, len 2 → 2·2.2/(2 + 0.75) = 1.6 · 0.980829 = 1.569327, above a and b (red only).
      const hits = index.search('RED hat');
      expect(hits.map((hit) => hit.id)).to.deep.equal(['c', 'a', 'b']);
      expect(hits[0]!.score).to.be.closeTo(1.569327, 1e-6);
      // A word repeated in the query counts once.
      expect(index.search('hat hat')[0]!.score).to.be.closeTo(1.569327, 1e-6);
      // The shorter document wins at equal tf: shoe in a (len 4) 0.646255, in b (len 6) 4.4/3.65 · 0.470004 = 0.566580.
      const shoe = index.search('shoe');
      expect(shoe.map((hit) => hit.id)).to.deep.equal(['a', 'b']);
      expect(shoe[0]!.score).to.be.closeTo(0.646255, 1e-6);
      expect(shoe[1]!.score).to.be.closeTo(0.56658, 1e-6);
      expect(index.search('sock')).to.deep.equal([]);
    });
  });
});
