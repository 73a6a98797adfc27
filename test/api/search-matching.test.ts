/**
 * How public search matches words (docs/search.md, "Matching"), rule by rule, on concrete queries:
 * a fixture catalog written into PostgreSQL and indexed by the real indexer, and the demo shop of a
 * sandbox (the seed every new merchant sees).
 */
import { expect } from 'chai';
import { call, type TestServer, type TestResponse } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { merchant, product, variant, type Merchant } from '../helpers/fixtures';
import { indexHandler } from '../helpers/indexing';

interface Item {
  title: string;
  fullMatch: boolean;
}

const CATALOG: Array<[title: string, description: string]> = [
  ['Bathroom Vanity 24 in. White', 'Material: oak. Soft-close doors.'],
  ['Grey Fabric Sofa', 'Material: linen. Seats three.'],
  ['Snow Boots', 'Warm lining. Material: rubber.'],
  ['Show Tickets Gift Card', 'A night out.'],
  ['Work Gloves', 'Leather palms.'],
  ['Copper Pipe 3/4 in. x 10 ft.', 'Type L.'],
  ['PVC Coupling 1-1/2 in.', 'Schedule 40.'],
  ['Pine Stud 2x4 8 ft.', 'Kiln dried.'],
  ['Steel Water Bottle 500ml', 'Keeps drinks cold.'],
  ['Hex Bolt M8 Zinc', 'Pack of 10.'],
  ['Wireless Controller XB2060SQ', 'For consoles.'],
  ['Travel Adapter XR-1020-TV', 'For sockets abroad.'],
  ['Chef Knife', 'Material: steel.'],
  ['Paint 1 gal. White', 'Matt finish.'],
  ['Trail Running Shoe', 'Grippy sole.'],
  ['Running Shoe', 'Material: mesh.'],
  ['Texas Road Atlas', 'Every county.'],
  ['Book of Knots', 'Fifty knots.'],
  ['Cotton Apron', 'Material: cotton.'],
  ['Bamboo Cutting Board', 'Material: bamboo.'],
];

describe('search matching rules', function () {
  this.timeout(120_000);
  let server: TestServer;
  let shop: Merchant;
  const suite = apiSuite((started) => (server = started));

  async function search(storeId: string, q: string, extra = ''): Promise<TestResponse> {
    const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${storeId}&q=${encodeURIComponent(q)}${extra}`);
    expect(res.status, res.text).to.equal(200);
    return res;
  }
  const titles = (res: TestResponse): string[] => (res.json.items as Item[]).map((i) => i.title);
  const find = (q: string, extra = ''): Promise<TestResponse> => search(shop.storeId, q, extra);

  before(async () => {
    shop = suite.addMerchant(await merchant(server), { indexed: true });
    const ids: string[] = [];
    for (const [title, description] of CATALOG) {
      const id = await product(server, shop, {
        title,
        description_html: `<p>${description}</p>`,
        status: 'PUBLISHED',
        price: 10,
        published_at: new Date(),
      });
      await variant(server, shop, id, { stock: 5 });
      ids.push(id);
    }
    await indexHandler(server).indexer.syncProducts(ids);
  });

  describe('strict pass', () => {
    it('never matches a short last word as a prefix: "mat" is not "Material:"', async () => {
      const sofaMat = await find('sofa mat');
      // No product is a sofa mat: the sofa is offered without "mat", never every product with a material.
      expect(titles(sofaMat)).to.deep.equal(['Grey Fabric Sofa']);
      expect(sofaMat.json.matching).to.deep.include({ strategy: 'fewer_words', q: 'sofa', dropped: ['mat'] });
      expect((await find('xyzzy mat')).json).to.include({ total: 0, looseMatch: false });
      expect((await find('mat')).json).to.include({ total: 0 });
    });

    it('still matches a longer last word as a prefix while it is being typed', async () => {
      expect(titles(await find('controll'))).to.deep.equal(['Wireless Controller XB2060SQ']);
    });

    it('ranks a title naming the word before a description holding it', async () => {
      expect(titles(await find('steel'))).to.deep.equal(['Steel Water Bottle 500ml', 'Chef Knife']);
    });

    it('finds numbers, fractions and dimensions as catalogues write them', async () => {
      expect(titles(await find('3/4 copper pipe'))).to.deep.equal(['Copper Pipe 3/4 in. x 10 ft.']);
      expect(titles(await find('1-1/2 coupling'))).to.deep.equal(['PVC Coupling 1-1/2 in.']);
      expect(titles(await find('2x4 stud'))).to.deep.equal(['Pine Stud 2x4 8 ft.']);
      expect(titles(await find('water bottle 500 ml'))).to.deep.equal(['Steel Water Bottle 500ml']);
      expect(titles(await find('m8 bolt'))).to.deep.equal(['Hex Bolt M8 Zinc']);
      expect(titles(await find('xb2060sq'))).to.deep.equal(['Wireless Controller XB2060SQ']);
    });

    it('treats spelled-out and abbreviated units as the same word', async () => {
      expect(titles(await find('24 inch vanity'))).to.deep.equal(['Bathroom Vanity 24 in. White']);
      expect(titles(await find('1 gallon paint'))).to.deep.equal(['Paint 1 gal. White']);
      expect(titles(await find('10 feet copper pipe'))).to.deep.equal(['Copper Pipe 3/4 in. x 10 ft.']);
    });
  });

  describe('looser readings', () => {
    it('tries the singular, and never shortens a word that only looks plural', async () => {
      const knives = await find('chef knives');
      expect(titles(knives)).to.deep.equal(['Chef Knife']);
      expect(knives.json.matching).to.deep.include({ strategy: 'word_forms', q: 'chef knife', changed: [{ from: 'knives', to: 'knife' }] });
      const texas = await find('texas');
      expect(titles(texas)).to.deep.equal(['Texas Road Atlas']);
      expect(texas.json.matching.strategy).to.equal('strict');
    });

    it('splits a model code the catalog writes with hyphens', async () => {
      const code = await find('xr1020tv');
      expect(titles(code)).to.deep.equal(['Travel Adapter XR-1020-TV']);
      expect(code.json.matching).to.deep.include({ strategy: 'word_forms', changed: [{ from: 'xr1020tv', to: 'xr 1020 tv' }] });
    });

    it('names exactly the word it dropped, and keeps the product word', async () => {
      const res = await find('running shoes women');
      expect(titles(res)).to.have.members(['Running Shoe', 'Trail Running Shoe']);
      expect(res.json.looseMatch).to.equal(true);
      expect(res.json.matching).to.deep.equal({
        strategy: 'fewer_words',
        q: 'running shoe',
        dropped: ['women'],
        changed: [{ from: 'shoes', to: 'shoe' }],
        partialMatches: 0,
      });
      expect((res.json.items as Item[]).every((item) => !item.fullMatch)).to.equal(true);
    });

    it('corrects no typo in a short word: "snow" is not "show"', async () => {
      const res = await find('snow gloves');
      expect(titles(res)).to.deep.equal(['Work Gloves', 'Snow Boots']);
      expect(titles(res)).to.not.include('Show Tickets Gift Card');
    });

    it('never answers with stop words, numbers or units alone', async () => {
      expect((await find('the for')).json).to.include({ total: 0 });
      expect((await find('12 oz')).json).to.include({ total: 0 });
      expect((await find('of 10 xyzzy')).json).to.include({ total: 0 });
    });

    it('fills a short first page with partial matches after the full ones, in relevance order only', async () => {
      const res = await find('trail running shoe');
      expect((res.json.items as Item[]).map((i) => [i.title, i.fullMatch])).to.deep.equal([
        ['Trail Running Shoe', true],
        ['Running Shoe', false],
      ]);
      expect(res.json).to.include({ total: 2, looseMatch: false });
      expect(res.json.matching.partialMatches).to.equal(1);
      const sorted = await find('trail running shoe', '&sort=newest');
      expect(titles(sorted)).to.deep.equal(['Trail Running Shoe']);
      expect(sorted.json.total).to.equal(1);
    });
  });

  describe('the demo shop', () => {
    let demo: string;
    before(async () => {
      const res = await call(server, 'POST', '/api/v1/sandbox', { body: { email: `matching-${Date.now()}@example.com` } });
      expect(res.status, res.text).to.equal(201);
      demo = res.json.storeId;
      suite.addIndexedStore(demo);
    });

    it('answers "yoga mat" and its kin with related products or nothing, never the whole catalogue', async () => {
      // Every description of the demo shop says "Material: …" and "Care: …".
      const all = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${demo}`);
      expect(all.json.total).to.equal(100);
      for (const q of ['yoga mat', 'sofa mat', 'xyzzy mat', 'yoga care']) {
        const res = await search(demo, q);
        expect(res.json.total, q).to.be.lessThan(10);
        for (const item of res.json.items as Item[]) expect(item.title, q).to.match(/yoga|sofa|mat\b/i);
      }
      expect((await search(demo, 'xyzzy mat')).json.total).to.equal(0);
    });
  });
});
