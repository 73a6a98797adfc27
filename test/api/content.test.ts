/**
 * Content pages and posts: CRUD with bounds, slug generation and uniqueness per store and kind,
 * sanitised bodies, audit and outbox rows per write, tenancy, and the storefront reads: drafts never,
 * published from publishedAt on (scheduled ones appear when their date comes), the slug filter, 404s.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { deliverIndexRows } from '../helpers/indexing';
import { eventually, sleepUntil } from '../helpers/wait';

describe('content pages and posts', function () {
  this.timeout(60_000);
  let server: TestServer;

  const suite = apiSuite((started) => (server = started));

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));

  type Kind = 'pages' | 'posts';
  const create = (m: Merchant, kind: Kind, body: Record<string, unknown>) =>
    call(server, 'POST', `/api/v1/content/${kind}`, { headers: m.headers, body: { storeId: m.storeId, ...body } });
  async function entry(m: Merchant, kind: Kind, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await create(m, kind, body);
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }
  const patch = (m: Merchant, kind: Kind, id: string, body: Record<string, unknown>) =>
    call(server, 'PATCH', `/api/v1/content/${kind}/${id}`, { headers: m.headers, body });
  const pub = (storeId: string, rest: string) => call(server, 'GET', `/api/v1/content/public/stores/${storeId}/${rest}`);

  it('creates, lists, updates and deletes pages and posts with one audit entry and one outbox row per write', async () => {
    const m = await newMerchant();
    const page = await entry(m, 'pages', {
      title: '  About Üs & Co. ',
      bodyHtml: '<h2>Hello</h2><p>We <strong>sell</strong> things.</p>',
      seoTitle: 'About',
      seoDescription: 'Who we are',
    });
    expect(page).to.deep.include({
      storeId: m.storeId,
      title: 'About Üs & Co.',
      slug: 'about-us-co',
      bodyHtml: '<h2>Hello</h2><p>We <strong>sell</strong> things.</p>',
      seoTitle: 'About',
      seoDescription: 'Who we are',
      status: 'DRAFT',
      publishedAt: null,
      live: false,
      scheduled: false,
    });
    expect(page).to.not.have.property('tags');
    const post = await entry(m, 'posts', {
      title: 'Spring sale',
      status: 'PUBLISHED',
      excerpt: 'Everything 20% off',
      author: 'Ada',
      tags: ['Sale', 'spring'],
    });
    expect(post).to.deep.include({
      slug: 'spring-sale',
      status: 'PUBLISHED',
      live: true,
      scheduled: false,
      excerpt: 'Everything 20% off',
      author: 'Ada',
      tags: ['Sale', 'spring'],
      bodyHtml: '',
    });
    expect(Date.parse(post.publishedAt)).to.be.closeTo(Date.now(), 60_000);

    const pages = await call(server, 'GET', `/api/v1/content/pages?storeId=${m.storeId}`, { headers: m.headers });
    expect(pages.status, pages.text).to.equal(200);
    expect(pages.json).to.deep.equal({ items: [page], nextCursor: null });
    const posts = await call(server, 'GET', `/api/v1/content/posts?storeId=${m.storeId}&status=PUBLISHED`, { headers: m.headers });
    expect(posts.json.items.map((p: { id: string }) => p.id)).to.deep.equal([post.id]);
    expect(
      (await call(server, 'GET', `/api/v1/content/posts?storeId=${m.storeId}&status=DRAFT`, { headers: m.headers })).json.items,
    ).to.deep.equal([]);

    const updated = await patch(m, 'pages', page.id, { title: 'About us', seoTitle: null, status: 'PUBLISHED' });
    expect(updated.status, updated.text).to.equal(200);
    // The slug does not follow the title.
    expect(updated.json).to.deep.include({ title: 'About us', slug: 'about-us-co', seoTitle: null, status: 'PUBLISHED', live: true });
    const same = await patch(m, 'pages', page.id, { title: 'About us', status: 'PUBLISHED' });
    expect(same.status).to.equal(200);
    expect(same.json.updatedAt).to.equal(updated.json.updatedAt);
    // A page id is not a post.
    expectProblem(await patch(m, 'posts', page.id, { title: 'x' }), 404, 'content_not_found');
    expectProblem(await call(server, 'DELETE', `/api/v1/content/posts/${page.id}`, { headers: m.headers }), 404, 'content_not_found');

    expect((await call(server, 'DELETE', `/api/v1/content/posts/${post.id}`, { headers: m.headers })).status).to.equal(204);
    expectProblem(await call(server, 'DELETE', `/api/v1/content/posts/${post.id}`, { headers: m.headers }), 404, 'content_not_found');

    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_type.startsWith('content_'));
    expect(audit.map((r) => [r.action, r.resource_id])).to.deep.equal([
      ['content_page.create', page.id],
      ['content_post.create', post.id],
      ['content_page.update', page.id],
      ['content_post.delete', post.id],
    ]);
    expect(audit[0]!.after).to.not.have.property('tags');
    expect(audit[2]!.before).to.deep.equal({ title: 'About Üs & Co.', seoTitle: 'About', status: 'DRAFT', publishedAt: null });
    expect(audit[2]!.after).to.include({ title: 'About us', seoTitle: null, status: 'PUBLISHED' });
    const outbox: Array<{ queue: string; topic: string; aggregate_type: string; aggregate_id: string }> =
      await server.runtime.dataSource.query(
        "SELECT queue, topic, aggregate_type, aggregate_id FROM outbox WHERE tenant_id = $1 AND aggregate_type LIKE 'content_%' ORDER BY id",
        [m.owner.tenantId],
      );
    expect(outbox.map((r) => [r.queue, r.topic, r.aggregate_type, r.aggregate_id])).to.deep.equal([
      ['index', 'content_page.created', 'content_page', page.id],
      ['index', 'content_post.created', 'content_post', post.id],
      ['index', 'content_page.updated', 'content_page', page.id],
      ['index', 'content_post.deleted', 'content_post', post.id],
    ]);
  });

  it('generates free slugs per store and kind, and answers 409 for a taken slug', async () => {
    const m = await newMerchant();
    const a = await entry(m, 'pages', { title: 'Shipping policy' });
    const b = await entry(m, 'pages', { title: 'Shipping Policy!' });
    const c = await entry(m, 'pages', { title: 'shipping  policy' });
    expect([a.slug, b.slug, c.slug]).to.deep.equal(['shipping-policy', 'shipping-policy-2', 'shipping-policy-3']);
    // Posts have their own slugs.
    expect((await entry(m, 'posts', { title: 'Shipping policy' })).slug).to.equal('shipping-policy');
    expect((await entry(m, 'pages', { title: '***' })).slug).to.equal('page');
    expect((await entry(m, 'pages', { title: 'Custom', slug: 'Our-Story' })).slug).to.equal('our-story');

    const taken = await create(m, 'pages', { title: 'Again', slug: 'shipping-policy' });
    expectProblem(taken, 409, 'slug_taken');
    expect(taken.json.errors).to.deep.equal([{ path: 'body.slug', message: 'slug is already taken in the store' }]);
    expectProblem(await patch(m, 'pages', c.id, { slug: 'OUR-STORY' }), 409, 'slug_taken');
    expect((await patch(m, 'pages', c.id, { slug: 'shipping-policy-3' })).status).to.equal(200);
    // Another store may use the same slug.
    const other = await newMerchant();
    expect((await entry(other, 'pages', { title: 'x', slug: 'shipping-policy' })).slug).to.equal('shipping-policy');
    // A deleted page frees its slug.
    expect((await call(server, 'DELETE', `/api/v1/content/pages/${a.id}`, { headers: m.headers })).status).to.equal(204);
    expect((await entry(m, 'pages', { title: 'Shipping policy' })).slug).to.equal('shipping-policy');
  });

  it('sanitises bodies: scripts, event handlers and javascript: URLs are removed', async () => {
    const m = await newMerchant();
    const page = await entry(m, 'pages', {
      title: 'Dirty',
      bodyHtml:
        '<p onclick="steal()" style="color:red">Hi<script>alert(1)</script></p><a href="javascript:alert(1)">x</a><a href="https://example.org" target="_blank">y</a>' +
        '<img src="https://example.org/a.png" onerror="alert(1)" alt="A"><img src="data:image/png;base64,AAAA"><iframe src="https://evil.example"></iframe><style>p{}</style>' +
        '<table><tr><td colspan="2">cell</td></tr></table><custom-tag>kept text</custom-tag>',
    });
    expect(page.bodyHtml).to.equal(
      '<p>Hi</p><a>x</a><a href="https://example.org" target="_blank" rel="noopener noreferrer">y</a><img src="https://example.org/a.png" alt="A" /><img /><table><tr><td colspan="2">cell</td></tr></table>kept text',
    );
    const patched = await patch(m, 'pages', page.id, { bodyHtml: '<h1>T</h1><script>x()</script>' });
    expect(patched.json.bodyHtml).to.equal('<h1>T</h1>');
    await patch(m, 'pages', page.id, { status: 'PUBLISHED' });
    expect((await pub(m.storeId, 'pages/dirty')).json.bodyHtml).to.equal('<h1>T</h1>');
  });

  it('rejects content out of bounds, with field paths', async () => {
    const m = await newMerchant();
    const cases: Array<[Kind, Record<string, unknown>, string]> = [
      ['pages', {}, 'body.title'],
      ['pages', { title: '  ' }, 'body.title'],
      ['pages', { title: 'x'.repeat(201) }, 'body.title'],
      ['pages', { title: 'a', slug: 'has space' }, 'body.slug'],
      ['pages', { title: 'a', slug: 'double--hyphen' }, 'body.slug'],
      ['pages', { title: 'a', slug: 'x'.repeat(201) }, 'body.slug'],
      ['pages', { title: 'a', bodyHtml: 'x'.repeat(200_001) }, 'body.bodyHtml'],
      ['pages', { title: 'a', seoTitle: 'x'.repeat(71) }, 'body.seoTitle'],
      ['pages', { title: 'a', seoDescription: 'x'.repeat(321) }, 'body.seoDescription'],
      ['pages', { title: 'a', status: 'ARCHIVED' }, 'body.status'],
      ['pages', { title: 'a', publishedAt: 'tomorrow' }, 'body.publishedAt'],
      ['pages', { title: 'a', publishedAt: '1999-12-31T00:00:00Z' }, 'body.publishedAt'],
      ['pages', { title: 'a', excerpt: 'posts only' }, 'body.excerpt'],
      ['pages', { title: 'a', tags: ['x'] }, 'body.tags'],
      ['posts', { title: 'a', excerpt: 'x'.repeat(501) }, 'body.excerpt'],
      ['posts', { title: 'a', author: 'x'.repeat(121) }, 'body.author'],
      ['posts', { title: 'a', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'body.tags'],
      ['posts', { title: 'a', tags: ['x'.repeat(51)] }, 'body.tags[0]'],
      ['posts', { title: 'a', tags: ['News', 'news '] }, 'body.tags[1]'],
      ['posts', { title: 'a', storeId: 'not-a-uuid' }, 'body.storeId'],
    ];
    for (const [kind, body, path] of cases) {
      const res = await create(m, kind, body);
      expect(res.status, `${kind} ${JSON.stringify(body).slice(0, 120)}: ${res.text.slice(0, 300)}`).to.equal(400);
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body).slice(0, 120),
      ).to.include(path);
    }
    const edge = await entry(m, 'posts', {
      title: 'x'.repeat(200),
      slug: 'y'.repeat(200),
      seoTitle: 's'.repeat(70),
      seoDescription: 'd'.repeat(320),
      excerpt: 'e'.repeat(500),
      author: 'a'.repeat(120),
      tags: Array.from({ length: 20 }, (_, i) => `t${i}`),
      publishedAt: '2000-01-01T00:00:00Z',
    });
    expect(edge.tags).to.have.length(20);
    expect((await patch(m, 'posts', edge.id, {})).status).to.equal(400);
    expect((await patch(m, 'posts', edge.id, { storeId: m.storeId })).status).to.equal(400);
    expect((await call(server, 'GET', `/api/v1/content/posts?storeId=${m.storeId}&limit=101`, { headers: m.headers })).status).to.equal(
      400,
    );
    expect((await call(server, 'GET', `/api/v1/content/pages?storeId=${m.storeId}&status=GONE`, { headers: m.headers })).status).to.equal(
      400,
    );
    expectProblem(
      await call(server, 'GET', `/api/v1/content/pages?storeId=${m.storeId}&cursor=abc`, { headers: m.headers }),
      400,
      'invalid_cursor',
    );
    expect((await call(server, 'GET', '/api/v1/content/pages', { headers: m.headers })).status).to.equal(400);
    expect((await pub(m.storeId, `pages?slug=${'x'.repeat(201)}`)).status).to.equal(400);
    expect((await pub(m.storeId, 'pages?slug=')).status).to.equal(400);
    expect((await pub(m.storeId, 'posts?limit=101')).status).to.equal(400);
    expectProblem(await pub(m.storeId, 'posts?cursor=bm9wZQ'), 400, 'invalid_cursor');
    expect((await pub(m.storeId, 'posts?unknown=1')).status).to.equal(400);
  });

  it('shows only published content whose date has come on the storefront', async () => {
    const m = await newMerchant();
    const draft = await entry(m, 'pages', { title: 'Draft page' });
    const live = await entry(m, 'pages', {
      title: 'Live page',
      status: 'PUBLISHED',
      publishedAt: '2024-01-01T10:00:00Z',
      bodyHtml: '<p>Live</p>',
    });
    // Two seconds ahead: the storefront's cached list must give way to it when that moment comes.
    const later = new Date(Date.now() + 2_000).toISOString();
    const scheduled = await entry(m, 'pages', { title: 'Scheduled page', status: 'PUBLISHED', publishedAt: later });
    expect(scheduled).to.deep.include({ live: false, scheduled: true, publishedAt: later });
    const plannedDraft = await entry(m, 'pages', { title: 'Planned draft', publishedAt: '2024-02-01T00:00:00Z' });
    expect(plannedDraft).to.deep.include({ status: 'DRAFT', publishedAt: '2024-02-01T00:00:00.000Z', live: false });

    let list = await pub(m.storeId, 'pages');
    expect(list.status, list.text).to.equal(200);
    expect(list.json).to.deep.equal({
      items: [
        {
          id: live.id,
          title: 'Live page',
          slug: 'live-page',
          seoTitle: null,
          seoDescription: null,
          publishedAt: '2024-01-01T10:00:00.000Z',
          updatedAt: live.updatedAt,
          bodyHtml: '<p>Live</p>',
        },
      ],
      nextCursor: null,
    });
    expect((await pub(m.storeId, 'pages/LIVE-PAGE')).json.id).to.equal(live.id);
    for (const slug of ['draft-page', 'scheduled-page', 'planned-draft', 'nothing'])
      expectProblem(await pub(m.storeId, `pages/${slug}`), 404, 'content_not_found');

    // The slug filter: one live page or none.
    expect((await pub(m.storeId, 'pages?slug=Live-Page')).json.items.map((p: { id: string }) => p.id)).to.deep.equal([live.id]);
    expect((await pub(m.storeId, 'pages?slug=draft-page')).json.items).to.deep.equal([]);

    // The scheduled page appears once its date has come, without another write (and through the cache).
    await sleepUntil(new Date(later), 50);
    list = await pub(m.storeId, 'pages');
    expect(list.json.items.map((p: { id: string }) => p.id)).to.deep.equal([scheduled.id, live.id]);
    expect((await pub(m.storeId, 'pages/scheduled-page')).status).to.equal(200);

    // Unpublishing hides it again; publishing a draft without a date stamps now.
    // Writes reach the storefront's cache through their outbox rows (delivered here as the indexer would).
    await patch(m, 'pages', live.id, { status: 'DRAFT' });
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
    await eventually(async () => (await pub(m.storeId, 'pages/live-page')).status === 404);
    expectProblem(await pub(m.storeId, 'pages/live-page'), 404, 'content_not_found');
    const published = await patch(m, 'pages', draft.id, { status: 'PUBLISHED' });
    expect(published.json.live).to.equal(true);
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
    await eventually(async () => (await pub(m.storeId, 'pages/draft-page')).status === 200);
  });

  it('lists public posts newest first, without bodies, page by page', async () => {
    const m = await newMerchant();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i += 1) {
      ids.push(
        (
          await entry(m, 'posts', {
            title: `Post ${i}`,
            status: 'PUBLISHED',
            publishedAt: `2024-0${i}-01T00:00:00Z`,
            bodyHtml: `<p>${i}</p>`,
            excerpt: `E${i}`,
            tags: ['news'],
          })
        ).id,
      );
    }
    await entry(m, 'posts', { title: 'Hidden' });
    const first = await pub(m.storeId, 'posts?limit=2');
    expect(first.status, first.text).to.equal(200);
    expect(first.json.items.map((p: { id: string }) => p.id)).to.deep.equal([ids[4], ids[3]]);
    expect(first.json.items[0]).to.deep.include({ title: 'Post 5', excerpt: 'E5', author: null, tags: ['news'] });
    expect(first.json.items[0]).to.not.have.property('bodyHtml');
    const second = await pub(m.storeId, `posts?limit=2&cursor=${first.json.nextCursor}`);
    expect(second.json.items.map((p: { id: string }) => p.id)).to.deep.equal([ids[2], ids[1]]);
    const third = await pub(m.storeId, `posts?limit=2&cursor=${second.json.nextCursor}`);
    expect(third.json).to.deep.include({ nextCursor: null });
    expect(third.json.items.map((p: { id: string }) => p.id)).to.deep.equal([ids[0]]);
    const one = await pub(m.storeId, 'posts/post-3');
    expect(one.json).to.deep.include({ id: ids[2], bodyHtml: '<p>3</p>', excerpt: 'E3' });
    expectProblem(await pub(m.storeId, 'posts/hidden'), 404, 'content_not_found');
    // A page slug is not a post.
    await entry(m, 'pages', { title: 'Only a page', status: 'PUBLISHED' });
    expectProblem(await pub(m.storeId, 'posts/only-a-page'), 404, 'content_not_found');
  });

  it('keeps tenants apart and answers 404 for unknown or archived stores', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const page = await entry(a, 'pages', { title: 'Mine', status: 'PUBLISHED' });
    expectProblem(await call(server, 'GET', `/api/v1/content/pages?storeId=${a.storeId}`, { headers: b.headers }), 404, 'store_not_found');
    expectProblem(await create(b, 'pages', { storeId: a.storeId, title: 'x' }), 404, 'store_not_found');
    expectProblem(await patch(b, 'pages', page.id, { title: 'x' }), 404, 'content_not_found');
    expectProblem(await call(server, 'DELETE', `/api/v1/content/pages/${page.id}`, { headers: b.headers }), 404, 'content_not_found');
    expectProblem(await pub(b.storeId, 'pages/mine'), 404, 'content_not_found');
    expect((await pub(b.storeId, 'pages')).json.items).to.deep.equal([]);
    expect((await call(server, 'GET', `/api/v1/content/pages?storeId=${a.storeId}`)).status).to.equal(401);
    const reader = await apiKey(server, a, ['cms:read']);
    expect((await call(server, 'GET', `/api/v1/content/pages?storeId=${a.storeId}`, { headers: reader })).status).to.equal(200);
    expect((await call(server, 'PATCH', `/api/v1/content/pages/${page.id}`, { headers: reader, body: { title: 'x' } })).status).to.equal(
      403,
    );

    expectProblem(await pub(uuidv7(), 'pages'), 404, 'store_not_found');
    expectProblem(await pub(uuidv7(), 'posts/x'), 404, 'store_not_found');
    await server.runtime.dataSource.query("UPDATE stores SET status = 'archived' WHERE id = $1", [a.storeId]);
    expectProblem(await pub(a.storeId, 'pages'), 404, 'store_not_found');
    expectProblem(await pub(a.storeId, 'pages/mine'), 404, 'store_not_found');
    expectProblem(await patch(a, 'pages', page.id, { title: 'x' }), 409, 'store_archived');
  });
});
