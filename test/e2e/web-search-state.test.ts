/**
 * The search page's state in the query string (shareable URLs): what the storefront keeps, drops and
 * sends to the public search, the facet controls and the page links. Pure functions, no services.
 */
import { expect } from 'chai';
import { SORTS, activeFilterCount, apiQuery, facetView, pagination, priceSlider, searchState, stateUrl } from '../../web/search-state';

describe('web: search state in the URL', () => {
  it('keeps the known parameters, splits lists, and drops unknown or malformed values', () => {
    const state = searchState({
      q: ['red shoes'],
      sort: ['price_asc'],
      page: ['3'],
      brandIds: ['a,b', 'b'],
      options: ['size:M'],
      priceMin: ['10.5'],
      priceMax: ['ten'],
      inStock: ['true'],
      discounted: ['yes'],
      unknown: ['x'],
    });
    expect(state).to.deep.equal({
      brandIds: ['a', 'b'],
      options: ['size:M'],
      q: ['red shoes'],
      sort: ['price_asc'],
      page: ['3'],
      priceMin: ['10.5'],
      inStock: ['true'],
    });
    expect(searchState({ sort: ['cheapest'], page: ['1000'] })).to.deep.equal({});
    expect(apiQuery(state, { storeId: 's', categoryId: 'c' })).to.deep.equal({
      storeId: 's',
      categoryId: 'c',
      perPage: 24,
      brandIds: ['a', 'b'],
      options: ['size:M'],
      q: 'red shoes',
      sort: 'price_asc',
      page: '3',
      priceMin: '10.5',
      inStock: 'true',
    });
  });

  it('offers the nine sorts of the public search', () => {
    expect(SORTS.map((s) => s.value)).to.have.members([
      'newest',
      'price_asc',
      'price_desc',
      'discount',
      'most_reviewed',
      'rating',
      'best_selling',
      'most_viewed',
      'relevance',
    ]);
  });

  it('builds page links that keep the rest of the state, and none for a single page', () => {
    const state = { q: ['shoe'], brandIds: ['a'], page: ['2'] };
    const p = pagination('/shop/s/search', state, 2, 7)!;
    expect(p.previous).to.equal('/shop/s/search?q=shoe&brandIds=a');
    expect(p.next).to.equal('/shop/s/search?q=shoe&brandIds=a&page=3');
    expect(p.pages.map((x) => [x.number, x.current])).to.deep.equal([
      [1, false],
      [2, true],
      [3, false],
      [4, false],
    ]);
    expect(pagination('/x', {}, 1, 1)).to.equal(undefined);
    expect(pagination('/x', {}, 100, 400)!.totalPages).to.equal(100);
    expect(stateUrl('/x', {})).to.equal('/x');
  });

  it('maps facets to form controls with their parameters, and price buckets to links', () => {
    const views = facetView(
      [
        {
          key: 'brand',
          label: 'Brand',
          display: 'checkbox',
          values: [
            { value: 'b1', label: 'Acme', count: 2, selected: true },
            { value: 'b2', label: 'Zenith', count: 1, selected: false },
          ],
        },
        { key: 'category', label: 'Category', display: 'checkbox', values: [{ value: 'c1', label: 'Shoes', count: 3, selected: false }] },
        { key: 'rating', label: 'Rating', display: 'list', values: [{ value: '4', label: '4 stars & up', count: 1, selected: false }] },
        { key: 'option:size', label: 'Size', display: 'checkbox', values: [{ value: 'size:M', label: 'M', count: 1, selected: false }] },
        { key: 'inStock', label: 'In stock', display: 'toggle', values: [{ value: 'true', label: 'In stock', count: 5, selected: false }] },
        {
          key: 'price',
          label: 'Price',
          display: 'list',
          values: [],
          stats: { min: 1, max: 90 },
          buckets: [
            { min: 0, max: 50, label: '0–50', count: 2, selected: false },
            { min: 50, max: null, label: '50+', count: 1, selected: true },
          ],
        },
      ],
      '/shop/s/categories/shoes',
      { q: ['x'], page: ['2'], priceMin: ['50'] },
      { categoryId: true },
    ) as Array<Record<string, any>>;
    expect(views.map((v) => [v.key, v.kind, v.param])).to.deep.equal([
      ['brand', 'checkbox', 'brandIds'],
      ['rating', 'radio', 'minRating'],
      ['option:size', 'checkbox', 'options'],
      ['inStock', 'toggle', 'inStock'],
      ['price', 'price', undefined],
    ]);
    expect(views[0]!.values.map((v: { checked: boolean }) => v.checked)).to.deep.equal([true, false]);
    expect(views[3]!.count).to.equal(5);
    expect(views[4]!.buckets.map((b: { url: string }) => b.url)).to.deep.equal([
      '/shop/s/categories/shoes?q=x&priceMin=0&priceMax=50',
      '/shop/s/categories/shoes?q=x',
    ]);
  });

  it('offers no link for a price range without products under the current filters, unless it is the one chosen', () => {
    const price = (buckets: Array<{ min: number; max: number | null; label: string; count: number; selected: boolean }>) =>
      facetView(
        [{ key: 'price', label: 'Price', display: 'range', values: [], stats: { min: 120, max: 7690 }, buckets }],
        '/s',
        {},
      ) as Array<Record<string, any>>;
    const [view] = price([
      { min: 100, max: 250, label: '100–250', count: 0, selected: false },
      { min: 250, max: 1000, label: '250–1,000', count: 4, selected: false },
      { min: 1000, max: null, label: '1,000+', count: 0, selected: true },
    ]);
    expect(view!.buckets.map((b: { label: string }) => b.label)).to.deep.equal(['250–1,000', '1,000+']);
  });

  it('bounds the price slider by the facet stats (whole units, cents for small ranges), its thumbs at the chosen range', () => {
    expect(priceSlider({ min: 138.99, max: 7690.99 }, {})).to.deep.equal({ min: 138, max: 7691, step: 1, from: 138, to: 7691 });
    expect(priceSlider({ min: 138.99, max: 7690.99 }, { priceMin: ['500'], priceMax: ['99999'] })).to.deep.equal({
      min: 138,
      max: 7691,
      step: 1,
      from: 500,
      to: 7691,
    });
    expect(priceSlider({ min: 0.29, max: 2.99 }, { priceMax: ['1.5'] })).to.deep.equal({
      min: 0.29,
      max: 2.99,
      step: 0.01,
      from: 0.29,
      to: 1.5,
    });
    expect(priceSlider({ min: 49.9, max: 49.9 }, {})).to.equal(undefined);
    expect(priceSlider(null, {})).to.equal(undefined);
  });

  it('counts the chosen filters for the Filters button (a price range counts once; the query, sort and page not at all)', () => {
    expect(activeFilterCount({ q: ['lamp'], sort: ['newest'], page: ['2'] })).to.equal(0);
    expect(activeFilterCount({ brandIds: ['a', 'b'], priceMin: ['100'], priceMax: ['250'], inStock: ['true'] })).to.equal(4);
    expect(activeFilterCount({ priceMax: ['250'] })).to.equal(1);
  });
});
