/**
 * The built-in unit synonyms against the real services: on an indexed store the public search finds
 * "24 in.", "1 gal." and "8 oz." titles by the spelled-out units, "in" never finds "inch" through
 * them, and a store rule switching a built-in term off takes it away once the store's settings are
 * applied again; GET /search-synonyms/built-in lists them with the rules that override them, to the
 * same readers as the rule list.
 */
import { expect } from 'chai';
import { call, type TestServer, type TestResponse } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, product, variant, type Headers, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, indexHandler, pendingIndexRows } from '../helpers/indexing';
import { eventually } from '../helpers/wait';
import { uuidv7 } from '../../storage/ids';
import { storeIndexUid } from '../../search/index-names';
import { BUILT_IN_UNIT_SYNONYMS } from '../../search/unit-synonyms';

interface Item {
  title: string;
  fullMatch: boolean;
  sponsored: boolean;
}

interface BuiltIn {
  type: string;
  terms: string[] | null;
  input: string | null;
  synonyms: string[] | null;
  overriddenTerms: string[];
  overriddenBy: string[];
}

describe('built-in unit synonyms', function () {
  this.timeout(60_000);
  let server: TestServer;

  const suite = apiSuite((started) => (server = started));
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });

  const drain = async (m: Merchant): Promise<void> => {
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
    expect(await pendingIndexRows(server, m.owner.tenantId)).to.equal(0);
  };
  const createRule = async (m: Merchant, body: Record<string, unknown>): Promise<string> => {
    const res = await call(server, 'POST', '/api/v1/search-synonyms', { headers: m.headers, body: { storeId: m.storeId, ...body } });
    expect(res.status, res.text).to.equal(201);
    return res.json.id;
  };
  const builtIn = (headers: Headers, storeId: string): Promise<TestResponse> =>
    call(server, 'GET', `/api/v1/search-synonyms/built-in?storeId=${storeId}`, { headers });

  describe('in the public search', () => {
    let shop: Merchant;

    before(async () => {
      shop = await newMerchant();
      const ids: string[] = [];
      for (const title of ['Vanity 24 in. White', 'Mirror 24 inch Oak', 'Shelf in Oak', 'Paint 1 gal.', 'Jar 8 oz.']) {
        const id = await product(server, shop, { title, status: 'PUBLISHED', published_at: new Date() });
        await variant(server, shop, id);
        ids.push(id);
      }
      await indexHandler(server).indexer.syncProducts(ids);
    });

    /** The titles that match every word of `q` (the partial matches filling a short page left out). */
    async function fullMatches(q: string): Promise<string[]> {
      const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${shop.storeId}&q=${encodeURIComponent(q)}`);
      expect(res.status, res.text).to.equal(200);
      return (res.json.items as Item[])
        .filter((i) => i.fullMatch && !i.sponsored)
        .map((i) => i.title)
        .sort();
    }

    it('finds abbreviated units by the spelled-out ones', async () => {
      expect(await fullMatches('24 inch vanity')).to.deep.equal(['Vanity 24 in. White']);
      expect(await fullMatches('24 inches')).to.deep.equal(['Mirror 24 inch Oak', 'Vanity 24 in. White']);
      expect(await fullMatches('1 gallon paint')).to.deep.equal(['Paint 1 gal.']);
      expect(await fullMatches('8 ounce jar')).to.deep.equal(['Jar 8 oz.']);
      // A group works both ways: "gal" finds "gallon" titles as "gallon" finds "gal." ones.
      expect(await fullMatches('gallons paint')).to.deep.equal(['Paint 1 gal.']);
    });

    it('never lets "in" find "inch" through the built-ins: only what contains "in"', async () => {
      expect(await fullMatches('in')).to.deep.equal(['Shelf in Oak', 'Vanity 24 in. White']);
      expect(await fullMatches('in oak')).to.deep.equal(['Shelf in Oak']);
      expect(await fullMatches('oak in')).to.deep.equal(['Shelf in Oak']);
      expect(await fullMatches('24 in. oak')).to.deep.equal([]);
      // One way: "inch" finds "in" (the cost: also a title holding the word "in" for another reason).
      expect(await fullMatches('inch oak')).to.deep.equal(['Mirror 24 inch Oak', 'Shelf in Oak']);
    });

    it('stops "gallon" finding "gal." once a store rule switches it off and the settings are applied again', async () => {
      const rule = await createRule(shop, { type: 'ONE_WAY', input: 'gallon', synonyms: ['gal'], isActive: false });
      await drain(shop);
      expect(await server.runtime.meiliAdmin.index(storeIndexUid(shop.storeId)).getSynonyms()).to.not.have.property('gallon');
      await eventually(async () => (await fullMatches('1 gallon paint')).length === 0, '"1 gallon paint" to find nothing in full');
      expect(await fullMatches('gallon')).to.deep.equal([]);
      // The other terms of the group keep their mapping.
      expect(await fullMatches('1 gallons paint')).to.deep.equal(['Paint 1 gal.']);

      // The store's own rule, once active, is what "gallon" finds.
      const on = await call(server, 'PATCH', `/api/v1/search-synonyms/${rule}`, { headers: shop.headers, body: { isActive: true } });
      expect(on.status, on.text).to.equal(200);
      await drain(shop);
      await eventually(
        async () => (await fullMatches('1 gallon paint')).includes('Paint 1 gal.'),
        '"1 gallon paint" to find "Paint 1 gal." again',
      );
    });
  });

  describe('GET /search-synonyms/built-in', () => {
    it('lists every built-in rule in force, and the store rules that override one', async () => {
      const m = await newMerchant();
      const before = await builtIn(m.headers, m.storeId);
      expect(before.status, before.text).to.equal(200);
      const items = before.json.items as BuiltIn[];
      expect(items).to.have.length(BUILT_IN_UNIT_SYNONYMS.length);
      expect(items.every((i) => i.overriddenBy.length === 0 && i.overriddenTerms.length === 0)).to.equal(true);
      expect(items).to.deep.include({
        type: 'ONE_WAY',
        terms: null,
        input: 'inch',
        synonyms: ['in'],
        overriddenTerms: [],
        overriddenBy: [],
      });
      expect(items).to.deep.include({
        type: 'MULTI_WAY',
        terms: ['gal', 'gallon', 'gallons'],
        input: null,
        synonyms: null,
        overriddenTerms: [],
        overriddenBy: [],
      });
      expect(items.some((i) => i.input === 'in' || (i.terms ?? []).includes('in'))).to.equal(false);

      const off = await createRule(m, { type: 'ONE_WAY', input: 'gallon', synonyms: ['gal'], isActive: false });
      const own = await createRule(m, { type: 'MULTI_WAY', terms: ['oz', 'ounce'] });
      // A rule whose synonyms name a built-in term does not override it: it maps from "jar".
      await createRule(m, { type: 'ONE_WAY', input: 'jar', synonyms: ['lb'] });
      const after = (await builtIn(m.headers, m.storeId)).json.items as BuiltIn[];
      const overridden = after.filter((i) => i.overriddenBy.length > 0);
      expect(overridden.map((i) => [i.terms, i.overriddenTerms, i.overriddenBy])).to.deep.equal([
        [['gal', 'gallon', 'gallons'], ['gallon'], [off]],
        [['oz', 'ounce', 'ounces'], ['oz', 'ounce'], [own]],
      ]);
    });

    it('shows them read-only on the console synonyms page, with whether each is in force', async () => {
      const m = await newMerchant();
      await createRule(m, { type: 'MULTI_WAY', terms: ['inch', 'inches'], isActive: false });
      await createRule(m, { type: 'ONE_WAY', input: 'gallon', synonyms: ['paint can'] });
      // The console's session cookie holds an access token: the owner's own will do.
      const res = await fetch(`${server.baseUrl}/console/stores/${m.storeId}/synonyms`, {
        headers: { Cookie: `console_at=${m.owner.accessToken}` },
        redirect: 'manual',
      });
      const html = await res.text();
      expect(res.status, html.slice(0, 300)).to.equal(200);
      const section = html.slice(html.indexOf('<section data-list="built-in"'));
      expect(section).to.include('Built-in unit synonyms');
      expect(section.slice(0, section.indexOf('</section>'))).to.not.include('<form');
      const rows = new Map([...section.matchAll(/<tr data-built-in="([^"]+)">[\s\S]*?data-in-force="(\w+)"/g)].map((r) => [r[1], r[2]]));
      expect(rows.size).to.equal(BUILT_IN_UNIT_SYNONYMS.length);
      expect(rows.get('inch,inches')).to.equal('no');
      expect(rows.get('inch')).to.equal('no');
      expect(rows.get('inches')).to.equal('no');
      expect(rows.get('gal,gallon,gallons')).to.equal('partly');
      expect(rows.get('oz,ounce,ounces')).to.equal('yes');
    });

    it("answers the rule list's readers; 403 without the scope, 404 for another tenant or an unknown store, 400, 401", async () => {
      const m = await newMerchant();
      const stranger = await newMerchant();
      const staff = await addMember(server, m.owner, 'staff');
      expect((await builtIn(staff.headers, m.storeId)).status).to.equal(200);
      const reader = await builtIn(await apiKey(server, m, ['search-synonyms:read']), m.storeId);
      expect(reader.status, reader.text).to.equal(200);
      expect(reader.json.items).to.have.length(BUILT_IN_UNIT_SYNONYMS.length);
      expectProblem(await builtIn(await apiKey(server, m, ['catalog:read']), m.storeId), 403, 'insufficient_scope');
      expectProblem(await builtIn(stranger.headers, m.storeId), 404, 'store_not_found');
      expectProblem(await builtIn(m.headers, uuidv7()), 404, 'store_not_found');
      expectProblem(await builtIn(m.headers, 'not-a-uuid'), 400, 'validation_failed');
      expectProblem(
        await call(server, 'GET', `/api/v1/search-synonyms/built-in?storeId=${m.storeId}&limit=5`, { headers: m.headers }),
        400,
        'validation_failed',
      );
      expect((await call(server, 'GET', `/api/v1/search-synonyms/built-in?storeId=${m.storeId}`)).status).to.equal(401);
      // Another tenant's rules never show as overriding this store's built-ins.
      await createRule(stranger, { type: 'MULTI_WAY', terms: ['oz', 'ounce'] });
      const items = (await builtIn(m.headers, m.storeId)).json.items as BuiltIn[];
      expect(items.every((i) => i.overriddenBy.length === 0)).to.equal(true);
    });
  });
});
