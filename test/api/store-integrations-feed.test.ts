/**
 * The integrations that do real work, end to end over HTTP: the product feed of a connected
 * google-merchant-feed (a published product appears, an unpublished or deleted one disappears, XML
 * well formed with every text escaped, CSV, ETag and 304, token access, 404 when disabled or
 * disconnected), and the analytics tags the storefront injects only while an analytics integration
 * is enabled, with the Content-Security-Policy allowing its host only then.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { createProduct, merchant, variant, type Merchant } from '../helpers/fixtures';
import { web } from '../helpers/web-page';
import { uuidv7 } from '../../storage/ids';
import { StorefrontIntegrationsResponse } from '../../api/store-integrations/store-integrations.schemas';

const API = '/api/v1';
const NASTY = `Tom & Jerry's <b>"best"</b> mug`;

/**
 * Well-formedness of the feed's XML as this test needs it: one prolog, tags balanced and properly
 * nested, no `<` or `>` or bare `&` in text or attribute values, only the five predefined entities.
 */
function expectWellFormedXml(xml: string): void {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n'), 'prolog').to.equal(true);
  const body = xml.slice(xml.indexOf('?>') + 2);
  const stack: string[] = [];
  const token = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+="[^"<>]*")*)\s*(\/?)>|([^<]+)/g;
  let consumed = 0;
  for (let m = token.exec(body); m; m = token.exec(body)) {
    expect(m.index, `unexpected markup at ${consumed}: ${body.slice(consumed, consumed + 40)}`).to.equal(consumed);
    consumed = token.lastIndex;
    const [, closing, name, attributes, selfClosing, text] = m;
    const checked = text ?? attributes ?? '';
    expect(checked, 'raw > in text').not.to.include('>');
    expect(checked.replace(/&(amp|lt|gt|quot|apos);/g, ''), 'bare &').not.to.include('&');
    if (text !== undefined) continue;
    if (closing) expect(stack.pop(), `closing ${name}`).to.equal(name);
    else if (!selfClosing) stack.push(name!);
  }
  expect(consumed, 'whole document read').to.equal(body.length);
  expect(stack, 'unclosed elements').to.deep.equal([]);
}

/** The text of each <item> of the feed, keyed by its g:id. */
function itemsOf(xml: string): Map<string, string> {
  const items = new Map<string, string>();
  for (const m of xml.matchAll(/<item>([\s\S]*?)<\/item>/g)) items.set(/<g:id>([^<]+)<\/g:id>/.exec(m[1]!)![1]!, m[1]!);
  return items;
}

describe('Store integrations that do real work', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;

  before(async () => {
    m = suite.addMerchant(await merchant(server));
  });

  const connect = (body: Record<string, unknown>, who: Merchant = m) =>
    call(server, 'POST', `${API}/store-integrations/connect`, { headers: who.headers, body: { storeId: who.storeId, ...body } });
  const toggle = (id: string, enabled: boolean, who: Merchant = m) =>
    call(server, 'POST', `${API}/store-integrations/${id}/toggle`, { headers: who.headers, body: { enabled } });
  const connected = async (body: Record<string, unknown>, who: Merchant = m): Promise<Record<string, any>> => {
    const res = await connect(body, who);
    expect(res.status, res.text).to.equal(200);
    return res.json;
  };
  const feedPath = (url: string) => new URL(url).pathname + new URL(url).search;
  const get = (path: string, headers: Record<string, string> = {}): Promise<TestResponse> => call(server, 'GET', path, { headers });

  describe('the product feed', () => {
    it('follows the catalog: publish, update, unpublish and delete show in the next read, every text escaped', async () => {
      const feed = await connected({ integration: 'google-merchant-feed' });
      expect(feed.feed.xmlUrl).to.match(
        new RegExp(`/api/v1/store-integrations/public/stores/${m.storeId}/feeds/${feed.id}/products\\.xml$`),
      );
      const xmlPath = feedPath(feed.feed.xmlUrl);

      const empty = await get(xmlPath);
      expect(empty.status, empty.text).to.equal(200);
      expect(empty.headers.get('content-type')).to.match(/^application\/xml; charset=utf-8/);
      expectWellFormedXml(empty.text);
      expect(itemsOf(empty.text).size).to.equal(0);

      const mug = await createProduct(server, m, {
        title: NASTY,
        price: 12.5,
        compareAtPrice: 15,
        descriptionHtml: '<p>Holds <em>350 ml</em> &amp; more</p>',
      });
      await variant(server, m, mug.id, { sku: 'MUG-1', barcode: '4006381333931', stock: 3 });
      const draft = await createProduct(server, m, { title: 'Draft only' });
      expect(itemsOf((await get(xmlPath)).text).has(mug.id), 'a draft is not in the feed').to.equal(false);

      const published = await call(server, 'POST', `${API}/catalog/products/${mug.id}/publish`, { headers: m.headers });
      expect(published.status, published.text).to.be.oneOf([200, 201]);
      const first = await get(xmlPath);
      expectWellFormedXml(first.text);
      const items = itemsOf(first.text);
      expect([...items.keys()]).to.deep.equal([mug.id]);
      const item = items.get(mug.id)!;
      expect(item).to.include(`<g:title>Tom &amp; Jerry&apos;s &lt;b&gt;&quot;best&quot;&lt;/b&gt; mug</g:title>`);
      expect(item).to.include('<g:description>Holds 350 ml &amp; more</g:description>');
      expect(item).to.include(`<g:link>${server.runtime.config.publicBaseUrl}/shop/${m.storeId}/products/${mug.slug}</g:link>`);
      expect(item).to.include('<g:price>15.00 EUR</g:price>');
      expect(item).to.include('<g:sale_price>12.50 EUR</g:sale_price>');
      expect(item).to.include('<g:availability>in_stock</g:availability>');
      expect(item).to.include('<g:gtin>4006381333931</g:gtin>');
      expect(item).to.include('<g:mpn>MUG-1</g:mpn>');
      expect(item).not.to.include(draft.id);

      // Caching: the same state answers the same ETag, and a conditional request 304.
      const etag = first.headers.get('etag')!;
      expect(etag).to.match(/^"[A-Za-z0-9_-]{32}"$/);
      expect(first.headers.get('last-modified')).to.be.a('string');
      expect(first.headers.get('cache-control')).to.equal('public, max-age=300');
      const again = await get(xmlPath, { 'If-None-Match': etag });
      expect(again.status).to.equal(304);
      expect(again.text).to.equal('');
      expect(again.headers.get('etag')).to.equal(etag);
      // If-Modified-Since alone is not trusted: stock changes carry no date.
      expect((await get(xmlPath, { 'If-Modified-Since': first.headers.get('last-modified')! })).status).to.equal(200);
      // A sale (stock changed, the product row untouched) is a new state: a new ETag, not a 304.
      await server.runtime.dataSource.query('UPDATE product_variants SET stock = stock - 1 WHERE product_id = $1', [mug.id]);
      const sold = await get(xmlPath, { 'If-None-Match': etag });
      expect(sold.status).to.equal(200);
      expect(sold.headers.get('etag')).not.to.equal(etag);
      await server.runtime.dataSource.query('UPDATE product_variants SET stock = stock + 1 WHERE product_id = $1', [mug.id]);

      // An update shows, with a new ETag.
      const patched = await call(server, 'PUT', `${API}/catalog/products/${mug.id}`, {
        headers: m.headers,
        body: { title: 'Plain mug', type: 'PHYSICAL', price: 12.5 },
      });
      expect(patched.status, patched.text).to.equal(200);
      const updated = await get(xmlPath, { 'If-None-Match': etag });
      expect(updated.status).to.equal(200);
      expect(updated.headers.get('etag')).not.to.equal(etag);
      expect(itemsOf(updated.text).get(mug.id)).to.include('<g:title>Plain mug</g:title>');
      // The whole product was replaced: no variant left (so out of stock), no compare-at price.
      expect(itemsOf(updated.text).get(mug.id)).to.include('<g:availability>out_of_stock</g:availability>');
      expect(itemsOf(updated.text).get(mug.id)).to.include('<g:price>12.50 EUR</g:price>');
      expect(itemsOf(updated.text).get(mug.id)).not.to.include('sale_price');

      // CSV: the same attributes, one row per product.
      const csv = await get(feedPath(feed.feed.csvUrl));
      expect(csv.status).to.equal(200);
      expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
      const lines = csv.text.trim().split('\r\n');
      expect(lines[0]).to.equal('id,title,description,link,image_link,availability,price,sale_price,condition,brand,gtin,mpn');
      expect(lines.slice(1).map((l) => l.split(',')[0])).to.deep.equal([mug.id]);

      // Unpublished (archived): gone. Published again, then deleted: gone.
      const second = await createProduct(server, m, { title: 'Second mug', status: 'PUBLISHED' });
      expect([...itemsOf((await get(xmlPath)).text).keys()]).to.have.members([mug.id, second.id]);
      expect((await call(server, 'POST', `${API}/catalog/products/${mug.id}/archive`, { headers: m.headers })).status).to.be.oneOf([
        200, 201,
      ]);
      expect([...itemsOf((await get(xmlPath)).text).keys()]).to.deep.equal([second.id]);
      expect((await call(server, 'DELETE', `${API}/catalog/products/${second.id}`, { headers: m.headers })).status).to.equal(204);
      const none = await get(xmlPath);
      expectWellFormedXml(none.text);
      expect(itemsOf(none.text).size).to.equal(0);
    });

    it('answers 404 when disabled, disconnected, of another store, or private without the right token', async () => {
      const owner = suite.addMerchant(await merchant(server));
      const product = await createProduct(server, owner, { title: 'Lamp', status: 'PUBLISHED' });
      const feed = await connected({ integration: 'google-merchant-feed', settings: { access: 'token', includeOutOfStock: false } }, owner);
      const url = new URL(feed.feed.xmlUrl);
      const token = url.searchParams.get('token')!;
      expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
      const path = url.pathname;

      // Out of stock products are left out with includeOutOfStock false.
      expect(itemsOf((await get(`${path}?token=${token}`)).text).size).to.equal(0);
      await variant(server, owner, product.id, { stock: 2 });
      expect([...itemsOf((await get(`${path}?token=${token}`)).text).keys()]).to.deep.equal([product.id]);

      expectProblem(await get(path), 404, 'product_feed_not_found');
      expectProblem(await get(`${path}?token=${'A'.repeat(43)}`), 404, 'product_feed_not_found');
      expectProblem(await get(`${path}?token=short`), 400, 'validation_failed');
      expectProblem(await get(`${path}?token=${token}&x=1`), 400, 'validation_failed');
      expectProblem(await get(path.replace(owner.storeId, m.storeId) + `?token=${token}`), 404, 'product_feed_not_found');
      expectProblem(await get(path.replace(feed.id, uuidv7()) + `?token=${token}`), 404, 'product_feed_not_found');
      expectProblem(await get(path.replace(feed.id, 'not-a-uuid')), 400, 'validation_failed');

      expect((await toggle(feed.id, false, owner)).status).to.equal(200);
      expectProblem(await get(`${path}?token=${token}`), 404, 'product_feed_not_found');
      expect((await toggle(feed.id, true, owner)).status).to.equal(200);
      expect((await get(`${path}?token=${token}`)).status).to.equal(200);
      const gone = await call(server, 'POST', `${API}/store-integrations/${feed.id}/disconnect`, { headers: owner.headers });
      expect(gone.status).to.equal(200);
      expectProblem(await get(`${path}?token=${token}`), 404, 'product_feed_not_found');
      expectProblem(await get(path.replace('.xml', '.csv') + `?token=${token}`), 404, 'product_feed_not_found');
    });
  });

  describe('analytics on the storefront', () => {
    const scriptHosts = (csp: string | null) => /script-src ([^;]*)/.exec(csp ?? '')![1]!.split(' ');

    it('injects the tag only while the integration is enabled, and the CSP allows its host only then', async () => {
      const owner = suite.addMerchant(await merchant(server));
      const page = () => web(server, 'GET', `/shop/${owner.storeId}`);
      const before = await page();
      expect(before.status, before.text).to.equal(200);
      expect(before.text).not.to.include('googletagmanager');
      expect(scriptHosts(before.headers.get('content-security-policy'))).to.deep.equal(["'self'"]);

      const ga = await connected({ integration: 'google-analytics-4', settings: { measurementId: 'G-TEST12345' } }, owner);
      const head = await get(`${API}/store-integrations/public/stores/${owner.storeId}/storefront`);
      expect(head.status).to.equal(200);
      expect(StorefrontIntegrationsResponse.schema.validate(head.json).error?.message).to.equal(undefined);
      expect(head.json.analytics).to.have.length(1);
      expect(head.json.analytics[0]).to.include({ provider: 'google-analytics-4', measurementId: 'G-TEST12345' });

      const on = await page();
      expect(on.status).to.equal(200);
      expect(on.text).to.include('<script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST12345"></script>');
      expect(on.text).to.include('<script src="/assets/theme/analytics-gtag.js" data-measurement-id="G-TEST12345" defer></script>');
      const csp = on.headers.get('content-security-policy')!;
      expect(scriptHosts(csp)).to.deep.equal(["'self'", 'https://www.googletagmanager.com']);
      expect(csp).to.match(/connect-src 'self' https:\/\/\*\.google-analytics\.com/);
      expect(csp).not.to.include('unsafe-inline');
      // Still no inline script: the Google tag is set up by a script file of the theme.
      expect(on.text).not.to.match(/<script(?![^>]*\ssrc=)[^>]*>/i);
      const asset = await web(server, 'GET', '/assets/theme/analytics-gtag.js');
      expect(asset.status).to.equal(200);

      // A second provider adds its own host; turning GA off removes its tag and host.
      await connected({ integration: 'plausible-analytics', settings: { domain: 'shop.example.com' } }, owner);
      expect((await toggle(ga.id, false, owner)).status).to.equal(200);
      const plausibleOnly = await page();
      expect(plausibleOnly.text).not.to.include('googletagmanager');
      expect(plausibleOnly.text).to.include(
        '<script defer data-domain="shop.example.com" src="https://plausible.io/js/script.js"></script>',
      );
      expect(scriptHosts(plausibleOnly.headers.get('content-security-policy'))).to.deep.equal(["'self'", 'https://plausible.io']);

      // Every analytics integration off: the page and its policy are as before.
      const pl = (
        await call(server, 'GET', `${API}/store-integrations?storeId=${owner.storeId}`, { headers: owner.headers })
      ).json.items.find((i: { integration: string }) => i.integration === 'plausible-analytics');
      expect((await toggle(pl.id, false, owner)).status).to.equal(200);
      const off = await page();
      expect(off.text).not.to.include('plausible.io');
      expect(off.headers.get('content-security-policy')).to.equal(before.headers.get('content-security-policy'));
    });

    it('answers 404 store_not_found for the storefront integrations of an unknown store', async () => {
      expectProblem(await get(`${API}/store-integrations/public/stores/${uuidv7()}/storefront`), 404, 'store_not_found');
    });
  });
});
