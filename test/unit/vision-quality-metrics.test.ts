/**
 * The visual relevance benchmark's measures (scripts/bench/vision-quality-metrics.ts) on small vector
 * sets whose answers are known by construction: ranks, recall@k, MRR, the share of neighbours with a
 * photo's label (plain and with the photo's category first), the chance share, and the label file.
 */
import { expect } from 'chai';
import {
  chanceShare,
  meanReciprocalRank,
  nearestNeighbours,
  nearestNeighboursByTiers,
  nearestNeighboursGroupFirst,
  parsePhotoLabels,
  percentileOf,
  rankOf,
  rankedBySimilarity,
  recallAt,
  retrievalFigures,
  sameLabelShare,
} from '../../scripts/bench/vision-quality-metrics';

/** Unit vector at `degrees` in the plane: the cosine of two is the cosine of their angle apart. */
const at = (degrees: number): Float32Array => {
  const r = (degrees * Math.PI) / 180;
  return Float32Array.from([Math.cos(r), Math.sin(r)]);
};

// Six photos on a circle: two tight groups (0°, 10°, 25°) and (90°, 100°, 115°), 65° and more apart.
// No two angles a test compares are the same distance apart, so float rounding decides no order.
const photos = [at(0), at(10), at(25), at(90), at(100), at(115)];
const labels = ['sofa', 'sofa', 'chair', 'shoe', 'shoe', 'shoe'];

describe('visual relevance measures', () => {
  it('ranks by cosine similarity, best first, ties to the earlier photo, leaving out the one skipped', () => {
    expect(rankedBySimilarity(at(4), photos)).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(rankedBySimilarity(at(95), photos, 3)).to.deep.equal([4, 5, 2, 1, 0]);
    // Two identical photos score the same: the earlier one first.
    expect(rankedBySimilarity(at(30), [at(30), at(0), at(30)])).to.deep.equal([0, 2, 1]);
  });

  it('finds the rank of the original of an altered copy', () => {
    // A copy of photo 1 moved to 4°: 0° (4° away) outranks it (6° away).
    expect(rankOf(at(4), photos, 1)).to.equal(2);
    expect(rankOf(at(9), photos, 1)).to.equal(1);
    // A copy of photo 5 (115°) moved to 61°: 29° from 90°, 36° from 25°, 39° from 100°, 51° from 10°,
    // 54° from 115°, 61° from 0°.
    expect(rankedBySimilarity(at(61), photos)).to.deep.equal([3, 2, 4, 1, 5, 0]);
    expect(rankOf(at(61), photos, 5)).to.equal(5);
    expect(() => rankOf(at(0), photos, 9)).to.throw(/no vector 9/);
  });

  it('recall@k and MRR of a list of ranks', () => {
    const ranks = [1, 1, 2, 5, 10];
    expect(recallAt(ranks, 1)).to.equal(0.4);
    expect(recallAt(ranks, 5)).to.equal(0.8);
    // (1 + 1 + 1/2 + 1/5 + 1/10) / 5 = 2.8 / 5
    expect(meanReciprocalRank(ranks)).to.be.closeTo(0.56, 1e-12);
    expect(retrievalFigures(ranks)).to.deep.equal({ queries: 5, recallAt1: 0.4, recallAt5: 0.8, mrr: meanReciprocalRank(ranks) });
    expect(retrievalFigures([])).to.deep.equal({ queries: 0, recallAt1: 0, recallAt5: 0, mrr: 0 });
  });

  it('the share of each photo’s nearest neighbours that carry its label, overall and per label', () => {
    expect(nearestNeighbours(photos, 0, 2)).to.deep.equal([1, 2]);
    expect(nearestNeighbours(photos, 4, 2)).to.deep.equal([3, 5]);
    const share = sameLabelShare(labels, (i) => nearestNeighbours(photos, i, 2));
    // sofa 0: [1 sofa, 2 chair] → 1/2; sofa 1: [0, 2] → 1/2; chair 2: [1, 0] → 0; each shoe: the two
    // other shoes → 1. Overall (1/2 + 1/2 + 0 + 1 + 1 + 1) / 6.
    expect(share.perLabel).to.deep.equal({ chair: 0, shoe: 1, sofa: 0.5 });
    expect(share.overall).to.be.closeTo(4 / 6, 1e-12);
  });

  it('neighbours of the same category come first, each part in similarity order', () => {
    const categories = ['seating', 'seating', 'seating', 'shoes', 'shoes', 'seating'];
    // Photo 5 (115°) is seating: the other seating photos (25°, 10°, 0°) come before the shoes.
    expect(nearestNeighbours(photos, 5, 3)).to.deep.equal([4, 3, 2]);
    expect(nearestNeighboursGroupFirst(photos, categories, 5, 3)).to.deep.equal([2, 1, 0]);
    expect(nearestNeighboursGroupFirst(photos, categories, 5, 5)).to.deep.equal([2, 1, 0, 4, 3]);
    // The read's tiers: the same subcategory (chairs: 0 and 1), then the same category (sofa 2), then the rest.
    const subcategories = ['chairs', 'chairs', 'sofas', 'sneakers', 'boots', 'chairs'];
    expect(nearestNeighboursByTiers(photos, [subcategories, categories], 5, 5)).to.deep.equal([1, 0, 2, 4, 3]);
    expect(nearestNeighboursByTiers(photos, [subcategories, categories], 5, 2)).to.deep.equal([1, 0]);
  });

  it('the share a ranking blind to the images would reach', () => {
    // sofa: 1 of the 5 others is a sofa (twice); chair: 0 of 5; shoe: 2 of 5 (three times).
    expect(chanceShare(labels)).to.be.closeTo((1 / 5 + 1 / 5 + 0 + 3 * (2 / 5)) / 6, 1e-12);
    expect(chanceShare(['a'])).to.equal(0);
  });

  it('percentiles by nearest rank', () => {
    expect(percentileOf([5, 1, 4, 2, 3], 50)).to.equal(3);
    expect(percentileOf([5, 1, 4, 2, 3], 95)).to.equal(5);
    expect(percentileOf([5, 1, 4, 2, 3], 5)).to.equal(1);
    expect(percentileOf([], 50)).to.be.NaN;
  });

  it('reads the label file: file and category required, subcategory optional, other columns ignored', () => {
    const rows = parsePhotoLabels(
      '\ufefffile,category,subcategory,licence\na.jpg,Home & Garden,Furniture,CC0\nsub/b.png,Electronics,,GPL-2\n',
    );
    expect(rows).to.deep.equal([
      { file: 'a.jpg', category: 'Home & Garden', subcategory: 'Furniture' },
      { file: 'sub/b.png', category: 'Electronics' },
    ]);
    expect(() => parsePhotoLabels('name,category\na.jpg,x\n')).to.throw(/no "file" column/);
    expect(() => parsePhotoLabels('file,category\n')).to.throw(/no rows/);
    expect(() => parsePhotoLabels('file,category\na.jpg,\n')).to.throw(/line 2: a.jpg has no category/);
    expect(() => parsePhotoLabels('file,category\na.jpg,x\na.jpg,y\n')).to.throw(/line 3: a.jpg is listed twice/);
    expect(() => parsePhotoLabels('file,category\n../a.jpg,x\n')).to.throw(/not a path inside/);
    expect(() => parsePhotoLabels('file,category\n/etc/a.jpg,x\n')).to.throw(/not a path inside/);
  });
});
