/**
 * Community: categories, discussions, comments, votes, views, reports and moderation. Who may call
 * each row (anonymous, merchants, API keys, platform roles), every validation bound, what the public
 * reads show (never hidden or deleted content), vote counts under 50 concurrent voters, the purge
 * (checked in SQL), the report state machine, sanitised bodies, rate limits and the audit entries.
 *
 * The forum is platform-wide, so every test works in categories of its own and the file deletes
 * what it made at the end.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, bearer, expectProblem, platformStaff, signUp, type Staff } from '../helpers/accounts';
import { apiKey, merchant, uniqueSlug } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { COMMUNITY_LIMITS } from '../../api/community/community-limits';

type As = { headers: Record<string, string> } | undefined;

/**
 * No element of `html` is a script or frame, and no tag has an event handler or a javascript: URL.
 * (Markdown shows HTML written inside it as text, so the words may appear escaped, never as markup.)
 */
function expectHarmless(html: string): void {
  const tags = html.match(/<[^>]*>/g) ?? [];
  for (const tag of tags) {
    expect(tag.toLowerCase()).not.to.match(/^<\/?(script|iframe|style|object|embed)/);
    expect(tag.toLowerCase()).not.to.match(/\son[a-z]+\s*=/);
    expect(tag.toLowerCase()).not.to.include('javascript:');
  }
  expect(html.toLowerCase()).not.to.include('<script');
}
type Json = Record<string, any>;

describe('community', function () {
  this.timeout(300_000);
  let server: TestServer;
  apiSuite((started) => (server = started));
  let admin: Staff;
  let agent: Staff;
  let sales: Staff;
  let author: { headers: Record<string, string>; userId: string; tenantId: string; email: string };
  let category: Json;
  const categoryIds: string[] = [];

  const api = (method: string, path: string, as?: As, body?: unknown) =>
    call(server, method, `/api/v1/community${path}`, { headers: as?.headers, body });
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const count = async (sql: string, params: unknown[]): Promise<number> => Number((await db(sql, params))[0].n);

  async function newUser() {
    const user = await signUp(server);
    return { headers: bearer(user.accessToken), userId: user.userId, tenantId: user.tenantId, email: user.email };
  }

  async function newCategory(name = `Cat ${uuidv7().slice(-8)}`): Promise<Json> {
    const res = await api('POST', '/platform/categories', admin, { name });
    expect(res.status, res.text).to.equal(201);
    categoryIds.push(res.json.id);
    return res.json;
  }

  async function newDiscussion(as: As, body: Json = {}): Promise<Json> {
    const res = await api('POST', '/discussions', as, {
      categoryId: category.id,
      title: `Shipping to islands ${uuidv7().slice(-6)}`,
      body: 'How do you **price** it?',
      ...body,
    });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  async function newComment(as: As, discussionId: string, body: Json = {}): Promise<Json> {
    const res = await api('POST', `/discussions/${discussionId}/comments`, as, { body: 'Same question here.', ...body });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const moderate = (id: string, action: string, as: As = agent) => api('PATCH', `/platform/discussions/${id}`, as, { action });
  const moderateComment = (id: string, action: string, as: As = agent) => api('PATCH', `/platform/comments/${id}`, as, { action });

  before(async () => {
    admin = await platformStaff(server, 'platform_admin');
    agent = await platformStaff(server, 'support_agent');
    sales = await platformStaff(server, 'sales_rep');
    author = await newUser();
    category = await newCategory();
  });

  // A fresh author for each test: the per-author rate limits count a whole hour.
  beforeEach(async () => {
    author = await newUser();
  });

  after(async () => {
    await db('DELETE FROM community_discussions WHERE category_id = ANY($1::uuid[])', [categoryIds]);
    await db('DELETE FROM community_categories WHERE id = ANY($1::uuid[])', [categoryIds]);
  });

  describe('categories', () => {
    it('creates, updates, orders and deletes categories (platform admins only)', async () => {
      const a = await newCategory('Payments & Payouts');
      expect(a).to.include({ name: 'Payments & Payouts', description: null, discussionCount: 0 });
      expect(a.slug).to.match(/^payments-payouts(-\d+)?$/);
      const slug = uniqueSlug('tips');
      const b = (await api('POST', '/platform/categories', admin, { name: 'Tips', slug, description: 'Share them' })).json;
      categoryIds.push(b.id);
      expect(b).to.include({ slug, description: 'Share them' });
      expectProblem(await api('POST', '/platform/categories', admin, { name: 'Other', slug }), 409, 'community_category_slug_taken');
      expectProblem(
        await api('POST', '/platform/categories', admin, { name: 'Other', slug: slug.toUpperCase() }),
        409,
        'community_category_slug_taken',
      );
      const updated = await api('PATCH', `/platform/categories/${b.id}`, admin, { name: 'Tips & tricks', description: null });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.json).to.include({ name: 'Tips & tricks', description: null, slug });
      expectProblem(await api('PATCH', `/platform/categories/${b.id}`, admin, { slug: a.slug }), 409, 'community_category_slug_taken');
      expectProblem(await api('PATCH', `/platform/categories/${uuidv7()}`, admin, { name: 'x' }), 404, 'community_category_not_found');

      const all = (await api('GET', '/categories')).json.items.map((c: Json) => c.id) as string[];
      expect(all).to.include.members([a.id, b.id]);
      const reversed = [...all].reverse();
      const reorder = await api('POST', '/platform/categories/reorder', admin, { ids: reversed });
      expect(reorder.status, reorder.text).to.equal(204);
      expect((await api('GET', '/categories')).json.items.map((c: Json) => c.id)).to.deep.equal(reversed);
      const mismatch = await api('POST', '/platform/categories/reorder', admin, { ids: [...reversed.slice(1), uuidv7()] });
      expectProblem(mismatch, 400, 'community_reorder_mismatch');
      expect(mismatch.json.errors.map((e: Json) => e.path)).to.include('body.ids');

      await newDiscussion(author, { categoryId: b.id });
      expectProblem(await api('DELETE', `/platform/categories/${b.id}`, admin), 409, 'community_category_not_empty');
      expect((await api('DELETE', `/platform/categories/${a.id}`, admin)).status).to.equal(204);
      expectProblem(await api('DELETE', `/platform/categories/${a.id}`, admin), 404, 'community_category_not_found');
      const actions = (await db('SELECT action FROM audit_log WHERE resource_id = ANY($1::text[]) ORDER BY id', [[a.id, b.id]])).map(
        (r) => r.action,
      );
      expect(actions).to.include.members([
        'community_category.create',
        'community_category.update',
        'community_category.reorder',
        'community_category.delete',
      ]);
    });

    it('refuses category writes to everyone but platform admins, and bad bodies', async () => {
      const id = category.id;
      for (const [method, path, body] of [
        ['POST', '/platform/categories', { name: 'X' }],
        ['PATCH', `/platform/categories/${id}`, { name: 'X' }],
        ['DELETE', `/platform/categories/${id}`, undefined],
        ['POST', '/platform/categories/reorder', { ids: [id] }],
      ] as const) {
        expectProblem(await api(method, path, undefined, body), 401, 'unauthorized');
        expectProblem(await api(method, path, author, body), 403, 'forbidden');
        expectProblem(await api(method, path, agent, body), 403, 'platform_role_required');
        expectProblem(await api(method, path, sales, body), 403, 'platform_role_required');
      }
      for (const body of [
        {},
        { name: '' },
        { name: 'x'.repeat(81) },
        { name: 'ok', slug: 'Bad Slug' },
        { name: 'ok', slug: 'x'.repeat(121) },
        { name: 'ok', description: 'x'.repeat(501) },
        { name: 'ok', extra: 1 },
        { name: 'bad\u0000name' },
        { name: 42 },
      ])
        expectProblem(await api('POST', '/platform/categories', admin, body), 400, 'validation_failed');
      expectProblem(await api('PATCH', `/platform/categories/${id}`, admin, {}), 400, 'validation_failed');
      expectProblem(await api('PATCH', '/platform/categories/not-a-uuid', admin, { name: 'x' }), 400, 'validation_failed');
      for (const body of [{ ids: [] }, { ids: ['x'] }, { ids: [id, id] }, {}])
        expectProblem(await api('POST', '/platform/categories/reorder', admin, body), 400, 'validation_failed');
    });
  });

  describe('discussions and comments', () => {
    it('lets any signed-in user post, never an anonymous caller or an API key', async () => {
      const m = await merchant(server);
      const staffMember = await addMember(server, m.owner, 'staff');
      const body = { categoryId: category.id, title: 'Hello there', body: 'First post' };
      expectProblem(await api('POST', '/discussions', undefined, body), 401, 'unauthorized');
      expectProblem(
        await api('POST', '/discussions', await apiKey(server, m, ['catalog:read']).then((h) => ({ headers: h })), body),
        403,
        'api_key_not_allowed',
      );
      const byOwner = await newDiscussion(m);
      const byStaff = await newDiscussion(staffMember);
      const byModerator = await newDiscussion(await platformStaff(server, 'support_agent'));
      expect(byOwner.author).to.deep.equal({ name: 'Test Owner', staff: false });
      expect(byStaff.author.staff).to.equal(false);
      expect(byModerator.author.staff).to.equal(true);
      const read = await api('GET', `/discussions/${byOwner.slug}`);
      expect(read.status, read.text).to.equal(200);
      // The public never learns who the author is beyond the name shown.
      expect(read.text).not.to.include(m.owner.email);
      expect(read.text).not.to.include(m.owner.tenantId);
      expect(read.text).not.to.include(m.owner.userId);
      for (const id of [byOwner.id, byStaff.id, byModerator.id])
        expect(
          await count('SELECT count(*) AS n FROM audit_log WHERE resource_id = $1 AND action = $2', [id, 'community_discussion.create']),
        ).to.equal(1);
      expect(
        await count('SELECT count(*) AS n FROM audit_log WHERE resource_id = $1 AND tenant_id = $2', [byOwner.id, m.owner.tenantId]),
      ).to.equal(1);
    });

    it('checks every bound of a new discussion and comment', async () => {
      const ok = { categoryId: category.id, title: 'A fine title', body: 'Body' };
      for (const body of [
        { ...ok, title: 'ab' },
        { ...ok, title: '   ab   ' },
        { ...ok, title: 'x'.repeat(201) },
        { ...ok, body: '' },
        { ...ok, body: 'x'.repeat(20_001) },
        { ...ok, format: 'rtf' },
        { ...ok, categoryId: 'nope' },
        { ...ok, title: 'nul \u0000 byte' },
        { ...ok, title: 'lone \ud800 surrogate' },
        { ...ok, title: 123 },
        { ...ok, extra: true },
        { title: 'no category', body: 'x' },
      ])
        expectProblem(await api('POST', '/discussions', author, body), 400, 'validation_failed');
      expectProblem(await api('POST', '/discussions', author, { ...ok, categoryId: uuidv7() }), 404, 'community_category_not_found');
      const longest = await api('POST', '/discussions', author, { ...ok, title: 'x'.repeat(200), body: 'y'.repeat(20_000) });
      expect(longest.status, longest.text).to.equal(201);

      const d = longest.json;
      const post = (body: unknown) => api('POST', `/discussions/${d.id}/comments`, author, body);
      for (const body of [
        { body: '' },
        { body: 'x'.repeat(5_001) },
        { body: 'x', parentId: 'x' },
        { body: 'x', format: 'bbcode' },
        {},
        { body: 'x', y: 1 },
      ])
        expectProblem(await post(body), 400, 'validation_failed');
      expect((await post({ body: 'z'.repeat(5_000) })).status).to.equal(201);
      expectProblem(await api('POST', `/discussions/${uuidv7()}/comments`, author, { body: 'x' }), 404, 'discussion_not_found');
      expectProblem(await api('POST', '/discussions/not-a-uuid/comments', author, { body: 'x' }), 400, 'validation_failed');
    });

    it('lists published discussions by category in each sort, with its bounds', async () => {
      const cat = await newCategory();
      const [u1, u2, u3] = [await newUser(), await newUser(), await newUser()];
      const first = await newDiscussion(u1, { categoryId: cat.id, title: 'First one' });
      const second = await newDiscussion(u2, { categoryId: cat.id, title: 'Second one' });
      const third = await newDiscussion(u3, { categoryId: cat.id, title: 'Third one' });
      await api('POST', `/discussions/${first.id}/vote`, u2, { value: 1 });
      await api('POST', `/discussions/${first.id}/vote`, u3, { value: 1 });
      await api('POST', `/discussions/${third.id}/vote`, u1, { value: -1 });
      await newComment(u3, second.id);
      const list = async (query: string) => {
        const res = await api('GET', `/discussions?categorySlug=${cat.slug}${query}`);
        expect(res.status, res.text).to.equal(200);
        return res.json.items.map((d: Json) => d.id);
      };
      expect(await list('')).to.deep.equal([third.id, second.id, first.id]);
      expect(await list('&sort=newest')).to.deep.equal([third.id, second.id, first.id]);
      expect(await list('&sort=active')).to.deep.equal([second.id, third.id, first.id]);
      expect(await list('&sort=top')).to.deep.equal([first.id, second.id, third.id]);
      expect(await list('&sort=top&limit=1')).to.deep.equal([first.id]);
      expect((await api('GET', `/discussions?categorySlug=${cat.slug.toUpperCase()}`)).json.items).to.have.length(3);
      const summary = (await api('GET', `/discussions?categorySlug=${cat.slug}&sort=top`)).json.items[0];
      expect(summary).to.include({ score: 2, upvotes: 2, downvotes: 0, commentCount: 0, pinned: false, locked: false });
      expect(summary).not.to.have.property('bodyHtml');
      expect((await api('GET', `/discussions?categorySlug=${cat.slug}&sort=active`)).json.items[0].commentCount).to.equal(1);
      // Pinned first in every sort.
      expect((await moderate(first.id, 'pin')).status).to.equal(200);
      expect(await list('&sort=newest')).to.deep.equal([first.id, third.id, second.id]);
      const everywhere = (await api('GET', '/discussions?limit=100')).json.items;
      expect(everywhere.length).to.be.within(1, 100);
      for (const query of ['limit=0', 'limit=101', 'limit=x', 'sort=oldest', `categorySlug=${'x'.repeat(121)}`, 'categorySlug=', 'page=2'])
        expectProblem(await api('GET', `/discussions?${query}`), 400, 'validation_failed');
      expectProblem(await api('GET', `/discussions?categorySlug=${uniqueSlug('none')}`), 404, 'community_category_not_found');
      expect((await api('GET', '/categories')).json.items.find((c: Json) => c.id === cat.id).discussionCount).to.equal(3);
    });

    it('threads comments one level deep and refuses comments on a locked discussion', async () => {
      const d = await newDiscussion(author);
      const other = await newDiscussion(await newUser());
      const commenter = await newUser();
      const top = await newComment(commenter, d.id, { body: 'Top level' });
      const reply = await newComment(author, d.id, { body: 'A reply', parentId: top.id });
      expect(reply).to.include({ parentId: top.id, discussionId: d.id, score: 0, myVote: 0 });
      const foreign = await newComment(commenter, other.id);
      for (const parentId of [reply.id, foreign.id, uuidv7()])
        expectProblem(await api('POST', `/discussions/${d.id}/comments`, author, { body: 'x', parentId }), 400, 'invalid_reply_parent');
      const listed = await api('GET', `/discussions/${d.slug}/comments`);
      expect(listed.status, listed.text).to.equal(200);
      expect(listed.json.items).to.have.length(1);
      expect(listed.json.items[0]).to.include({ id: top.id, myVote: null });
      expect(listed.json.items[0].replies.map((r: Json) => r.id)).to.deep.equal([reply.id]);
      expect((await api('GET', `/discussions/${d.slug}`)).json.commentCount).to.equal(2);

      expect((await moderate(d.id, 'lock')).json).to.include({ locked: true, status: 'PUBLISHED' });
      expectProblem(await api('POST', `/discussions/${d.id}/comments`, commenter, { body: 'late' }), 409, 'discussion_locked');
      expect((await api('GET', `/discussions/${d.slug}`)).json.locked).to.equal(true);
      expectProblem(await moderate(d.id, 'lock'), 409, 'invalid_moderation');
      expect((await moderate(d.id, 'unlock')).status).to.equal(200);
      await newComment(commenter, d.id, { body: 'Open again' });
      expect(
        await count("SELECT count(*) AS n FROM audit_log WHERE resource_id = $1 AND action = 'community_comment.create'", [reply.id]),
      ).to.equal(1);
    });

    it('sanitises Markdown and HTML bodies: no script, event handler or javascript: URL survives', async () => {
      const attack =
        '<p>ok</p><script>alert(1)</script><img src="https://x.test/a.png" onerror="alert(2)"><a href="javascript:alert(3)">x</a><a href="https://ok.test" onclick="alert(4)">fine</a><iframe src="https://evil.test"></iframe>';
      const html = await newDiscussion(author, { body: attack, format: 'html' });
      const markdown = await newDiscussion(await newUser(), {
        body: `# Title\n\n**bold** and _it_ and \`code\`\n\n${attack}\n\n[click](javascript:alert(5)) [fine](https://ok.test)\n\n- one\n- two`,
      });
      const comment = await newComment(author, html.id, { body: attack, format: 'html' });
      const reply = await newComment(author, html.id, { body: `[x](JavaScript:alert(6)) ${attack}`, parentId: comment.id });
      for (const body of [html.bodyHtml, markdown.bodyHtml, comment.bodyHtml, reply.bodyHtml]) expectHarmless(body);
      expect(html.bodyHtml.toLowerCase()).not.to.match(/script|onerror|onclick|javascript|iframe/);
      expect(html.bodyHtml).to.include('<p>ok</p>');
      expect(html.bodyHtml).to.include('rel="nofollow ugc noopener noreferrer"');
      expect(markdown.bodyHtml).to.include('<h1>Title</h1>');
      expect(markdown.bodyHtml).to.include('<strong>bold</strong>');
      expect(markdown.bodyHtml).to.include('<em>it</em>');
      expect(markdown.bodyHtml).to.include('<code>code</code>');
      expect(markdown.bodyHtml).to.include('<ul><li>one</li><li>two</li></ul>');
      expect(markdown.bodyHtml).to.include('&lt;script&gt;'); // HTML inside Markdown is text
      expect((await api('GET', `/discussions/${html.slug}`)).json.bodyHtml).to.equal(html.bodyHtml);
      const stored = await db('SELECT body_html FROM community_discussions WHERE id = ANY($1::uuid[])', [[html.id, markdown.id]]);
      for (const row of stored) expectHarmless(row.body_html);
      for (const body of ['<script>alert(1)</script>', '<style>p{}</style>   ', '<img src="https://x.test/a.png">'])
        expectProblem(
          await api('POST', '/discussions', author, { categoryId: category.id, title: 'Only markup', body, format: 'html' }),
          400,
          'empty_body',
        );
    });

    it('counts a view once per viewer per period', async () => {
      const d = await newDiscussion(author);
      const viewer = await newUser();
      const view = (as?: As) => api('POST', `/discussions/${d.slug}/view`, as);
      const views = async () => (await api('GET', `/discussions/${d.slug}`)).json.viewCount;
      expect((await view()).status).to.equal(204);
      expect((await view()).status).to.equal(204);
      expect(await views()).to.equal(1);
      await view(viewer);
      await view(viewer);
      expect(await views()).to.equal(2);
      // The period has passed for the signed-in viewer: they count again.
      await db(
        "UPDATE community_discussion_viewers SET viewed_at = now() - interval '25 hours' WHERE discussion_id = $1 AND viewer_key = $2",
        [d.id, `user:${viewer.userId}`],
      );
      await view(viewer);
      expect(await views()).to.equal(3);
      expectProblem(await api('POST', `/discussions/${uniqueSlug('missing')}/view`), 404, 'discussion_not_found');
      // A view is a read: it changes a counter, nothing a person wrote, so the audit log keeps none.
      expect(await count('SELECT count(*) AS n FROM audit_log WHERE resource_id = $1', [d.id])).to.equal(1);
    });

    it('rate-limits discussions and comments per author (429 with Retry-After)', async () => {
      const spammer = await newUser();
      for (let i = 0; i < COMMUNITY_LIMITS.discussionsPerAuthor.limit; i += 1) await newDiscussion(spammer);
      const blocked = await api('POST', '/discussions', spammer, { categoryId: category.id, title: 'One too many', body: 'spam' });
      expectProblem(blocked, 429, 'rate_limited');
      expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, COMMUNITY_LIMITS.discussionsPerAuthor.windowSeconds);
      expect(
        await count("SELECT count(*) AS n FROM community_discussions WHERE title = 'One too many' AND author_user_id = $1", [
          spammer.userId,
        ]),
      ).to.equal(0);
      // Another author is not affected.
      await newDiscussion(await newUser());
      const d = await newDiscussion(author);
      for (let i = 0; i < COMMUNITY_LIMITS.commentsPerAuthor.limit; i += 1) await newComment(spammer, d.id);
      expectProblem(await api('POST', `/discussions/${d.id}/comments`, spammer, { body: 'again' }), 429, 'rate_limited');
      expect(await count('SELECT count(*) AS n FROM community_comments WHERE discussion_id = $1', [d.id])).to.equal(
        COMMUNITY_LIMITS.commentsPerAuthor.limit,
      );
    });
  });

  describe('votes', () => {
    async function voters(n: number) {
      const owner = await signUp(server);
      const members: Array<{ headers: Record<string, string>; userId: string }> = [];
      for (let i = 0; i < n; i += 1) members.push(await addMember(server, owner, 'staff'));
      return members;
    }

    it('keeps score = upvotes - downvotes = the sum of votes under 50 concurrent voters, changing and withdrawing', async () => {
      const d = await newDiscussion(author);
      const c = await newComment(author, d.id);
      const people = await voters(50);
      const sums = async () => ({
        discussion: (
          await db(
            'SELECT upvotes, downvotes, (SELECT coalesce(sum(value), 0)::int FROM community_discussion_votes WHERE discussion_id = $1) AS total, (SELECT count(*)::int FROM community_discussion_votes WHERE discussion_id = $1) AS n FROM community_discussions WHERE id = $1',
            [d.id],
          )
        )[0],
        comment: (
          await db(
            'SELECT upvotes, downvotes, (SELECT coalesce(sum(value), 0)::int FROM community_comment_votes WHERE comment_id = $1) AS total, (SELECT count(*)::int FROM community_comment_votes WHERE comment_id = $1) AS n FROM community_comments WHERE id = $1',
            [c.id],
          )
        )[0],
      });
      // 30 up and 20 down, all at once, on both targets.
      const first = await Promise.all(
        people.flatMap((p, i) => [
          api('POST', `/discussions/${d.id}/vote`, p, { value: i < 30 ? 1 : -1 }),
          api('POST', `/comments/${c.id}/vote`, p, { value: i < 30 ? -1 : 1 }),
        ]),
      );
      for (const res of first) expect(res.status, res.text).to.equal(200);
      let now = await sums();
      expect(now.discussion).to.deep.include({ upvotes: 30, downvotes: 20, total: 10, n: 50 });
      expect(now.comment).to.deep.include({ upvotes: 20, downvotes: 30, total: -10, n: 50 });
      const read = await api('GET', `/discussions/${d.slug}`, people[0]);
      expect(read.json).to.include({ score: 10, upvotes: 30, downvotes: 20, myVote: 1 });
      expect((await api('GET', `/discussions/${d.slug}`)).json.myVote).to.equal(null);
      expect((await api('GET', `/discussions/${d.slug}/comments`, people[49])).json.items[0]).to.include({ score: -10, myVote: 1 });

      // At once: 10 up-voters turn down, 10 withdraw, 10 vote up again (no change), on both.
      const second = await Promise.all(
        people.slice(0, 30).flatMap((p, i) => {
          const value = i < 10 ? -1 : i < 20 ? 0 : 1;
          return [api('POST', `/discussions/${d.id}/vote`, p, { value }), api('POST', `/comments/${c.id}/vote`, p, { value: -value })];
        }),
      );
      for (const res of second) expect(res.status, res.text).to.equal(200);
      now = await sums();
      expect(now.discussion).to.deep.include({ upvotes: 10, downvotes: 30, total: -20, n: 40 });
      expect(now.comment).to.deep.include({ upvotes: 30, downvotes: 10, total: 20, n: 40 });
      const last = await api('POST', `/discussions/${d.id}/vote`, people[0], { value: 0 });
      expect(last.json).to.deep.equal({ targetId: d.id, score: -19, upvotes: 10, downvotes: 29, myVote: 0 });
      expect(
        await count("SELECT count(*) AS n FROM audit_log WHERE resource_id = $1 AND action = 'community_discussion.vote'", [d.id]),
      ).to.equal(50 + 20 + 1);
    });

    it('refuses bad votes, anonymous voters and API keys', async () => {
      const d = await newDiscussion(author);
      for (const value of [2, -2, 0.5, 'up', true, null])
        expectProblem(await api('POST', `/discussions/${d.id}/vote`, author, { value }), 400, 'validation_failed');
      expectProblem(await api('POST', `/discussions/${d.id}/vote`, author, {}), 400, 'validation_failed');
      expectProblem(await api('POST', `/discussions/${d.id}/vote`, undefined, { value: 1 }), 401, 'unauthorized');
      expectProblem(await api('POST', `/discussions/${uuidv7()}/vote`, author, { value: 1 }), 404, 'discussion_not_found');
      expectProblem(await api('POST', `/comments/${uuidv7()}/vote`, author, { value: 1 }), 404, 'comment_not_found');
      const m = await merchant(server);
      expectProblem(
        await api('POST', `/discussions/${d.id}/vote`, { headers: await apiKey(server, m, ['catalog:read']) }, { value: 1 }),
        403,
        'api_key_not_allowed',
      );
    });
  });

  describe('moderation', () => {
    it('keeps hidden and deleted discussions, and hidden comments, out of every public read', async () => {
      const cat = await newCategory();
      const d = await newDiscussion(author, { categoryId: cat.id, title: 'Will be hidden' });
      const c = await newComment(author, d.id);
      const reader = await newUser();
      const publicReads = async () => ({
        list: (await api('GET', `/discussions?categorySlug=${cat.slug}`)).json.items.map((x: Json) => x.id),
        all: (await api('GET', '/discussions?limit=100')).json.items.map((x: Json) => x.id),
        bySlug: (await api('GET', `/discussions/${d.slug}`)).status,
        comments: (await api('GET', `/discussions/${d.slug}/comments`)).status,
        view: (await api('POST', `/discussions/${d.slug}/view`)).status,
        vote: (await api('POST', `/discussions/${d.id}/vote`, reader, { value: 1 })).status,
        commentVote: (await api('POST', `/comments/${c.id}/vote`, reader, { value: 1 })).status,
        comment: (await api('POST', `/discussions/${d.id}/comments`, reader, { body: 'hi' })).status,
        report: (await api('POST', `/discussions/${d.id}/report`, reader, { reason: 'SPAM' })).status,
        count: (await api('GET', '/categories')).json.items.find((x: Json) => x.id === cat.id).discussionCount,
      });
      for (const action of ['hide', 'delete']) {
        const res = await moderate(d.id, action);
        expect(res.status, res.text).to.equal(200);
        expect(res.json.status).to.equal(action === 'hide' ? 'HIDDEN' : 'DELETED');
        const reads = await publicReads();
        expect(reads.list).not.to.include(d.id);
        expect(reads.all).not.to.include(d.id);
        expect(reads).to.include({
          bySlug: 404,
          comments: 404,
          view: 404,
          vote: 404,
          commentVote: 404,
          comment: 404,
          report: 404,
          count: 0,
        });
        expect((await api('GET', `/discussions/${d.slug}`)).json.code).to.equal('discussion_not_found');
        const staffList = await api('GET', `/platform/discussions?categoryId=${cat.id}`, agent);
        expect(staffList.json.items.map((x: Json) => x.id)).to.deep.equal([d.id]);
        expect((await moderate(d.id, 'restore')).json.status).to.equal('PUBLISHED');
      }
      expect((await publicReads()).bySlug).to.equal(200);

      // A hidden comment, and the replies under a hidden top-level comment, leave the public reads.
      const top = await newComment(reader, d.id, { body: 'top' });
      const reply = await newComment(author, d.id, { body: 'reply', parentId: top.id });
      expect((await moderateComment(top.id, 'hide')).json).to.include({ status: 'HIDDEN', id: top.id });
      const comments = (await api('GET', `/discussions/${d.slug}/comments`)).json.items;
      expect(comments.map((x: Json) => x.id)).not.to.include(top.id);
      expect(JSON.stringify(comments)).not.to.include(reply.id);
      expect((await api('GET', `/discussions/${d.slug}`)).json.commentCount).to.equal(
        await count(
          "SELECT count(*) AS n FROM community_comments WHERE discussion_id = $1 AND status = 'PUBLISHED' AND parent_id IS NULL",
          [d.id],
        ),
      );
      expectProblem(await api('POST', `/comments/${top.id}/vote`, reader, { value: 1 }), 404, 'comment_not_found');
      expectProblem(await api('POST', `/comments/${reply.id}/vote`, reader, { value: 1 }), 404, 'comment_not_found');
      expectProblem(await api('POST', `/comments/${top.id}/report`, reader, { reason: 'ABUSE' }), 404, 'comment_not_found');
      expectProblem(
        await api('POST', `/discussions/${d.id}/comments`, reader, { body: 'x', parentId: top.id }),
        400,
        'invalid_reply_parent',
      );
      const staffComments = await api('GET', `/platform/discussions/${d.id}/comments`, agent);
      expect(staffComments.status, staffComments.text).to.equal(200);
      expect(staffComments.json.items.find((x: Json) => x.id === top.id)).to.include({
        status: 'HIDDEN',
        authorUserId: reader.userId,
        authorTenantId: reader.tenantId,
      });
      expect((await api('GET', `/platform/discussions?categoryId=${cat.id}`, agent)).json.items[0].hiddenCommentCount).to.equal(1);
      expectProblem(await moderateComment(top.id, 'hide'), 409, 'invalid_moderation');
      expect((await moderateComment(top.id, 'restore')).json.status).to.equal('PUBLISHED');
      expect(JSON.stringify((await api('GET', `/discussions/${d.slug}/comments`)).json)).to.include(reply.id);
      expectProblem(await moderateComment(top.id, 'restore'), 409, 'invalid_moderation');
      expectProblem(await moderateComment(uuidv7(), 'hide'), 404, 'comment_not_found');
      const audited = (await db('SELECT action FROM audit_log WHERE resource_id = ANY($1::text[]) ORDER BY id', [[d.id, top.id]])).map(
        (r) => r.action,
      );
      expect(audited).to.include.members([
        'community_discussion.hide',
        'community_discussion.delete',
        'community_discussion.restore',
        'community_comment.hide',
        'community_comment.restore',
      ]);
    });

    it('allows only the moves of the state table', async () => {
      const d = await newDiscussion(author);
      expectProblem(await moderate(d.id, 'restore'), 409, 'invalid_moderation');
      expectProblem(await moderate(d.id, 'unlock'), 409, 'invalid_moderation');
      expectProblem(await moderate(d.id, 'unpin'), 409, 'invalid_moderation');
      expect((await moderate(d.id, 'hide')).json.status).to.equal('HIDDEN');
      expectProblem(await moderate(d.id, 'hide'), 409, 'invalid_moderation');
      expect((await moderate(d.id, 'delete')).json.status).to.equal('DELETED');
      expectProblem(await moderate(d.id, 'delete'), 409, 'invalid_moderation');
      expectProblem(await moderate(d.id, 'hide'), 409, 'invalid_moderation');
      expect((await moderate(d.id, 'pin')).json).to.include({ pinned: true, status: 'DELETED' });
      const reasoned = await api('PATCH', `/platform/discussions/${d.id}`, admin, { action: 'restore', reason: 'Appeal accepted' });
      expect(reasoned.json).to.include({ status: 'PUBLISHED', moderationReason: 'Appeal accepted', moderatedBy: admin.userId });
      for (const body of [
        {},
        { action: 'ban' },
        { action: 'hide', reason: '' },
        { action: 'hide', reason: 'x'.repeat(1001) },
        { action: 'hide', x: 1 },
      ])
        expectProblem(await api('PATCH', `/platform/discussions/${d.id}`, agent, body), 400, 'validation_failed');
      expectProblem(await api('PATCH', `/platform/comments/${uuidv7()}`, agent, { action: 'lock' }), 400, 'validation_failed');
      expectProblem(await moderate(uuidv7(), 'hide'), 404, 'discussion_not_found');
    });

    it('lets only moderators (platform admins, support agents) moderate', async () => {
      const d = await newDiscussion(author);
      const c = await newComment(author, d.id);
      const rows: Array<[string, string, unknown]> = [
        ['GET', '/platform/discussions', undefined],
        ['GET', `/platform/discussions/${d.id}/comments`, undefined],
        ['PATCH', `/platform/discussions/${d.id}`, { action: 'pin' }],
        ['PATCH', `/platform/comments/${c.id}`, { action: 'hide' }],
        ['GET', '/platform/reports', undefined],
        ['PATCH', `/platform/reports/${uuidv7()}`, { status: 'RESOLVED' }],
        ['DELETE', `/platform/discussions/${uuidv7()}`, undefined],
      ];
      for (const [method, path, body] of rows) {
        expectProblem(await api(method, path, undefined, body), 401, 'unauthorized');
        expectProblem(await api(method, path, author, body), 403, 'forbidden');
        expectProblem(await api(method, path, sales, body), 403, 'platform_role_required');
      }
      expect((await api('PATCH', `/platform/discussions/${d.id}`, admin, { action: 'pin' })).status).to.equal(200);
      expect((await api('PATCH', `/platform/comments/${c.id}`, agent, { action: 'hide' })).status).to.equal(200);
      expect((await api('GET', '/platform/reports', admin)).status).to.equal(200);
    });

    it('lists discussions for moderation by status, category and full-text search, page by page', async () => {
      const cat = await newCategory();
      const word = `zebra${uuidv7().replace(/-/g, '').slice(-10)}`;
      const made: Json[] = [];
      for (const [i, as] of [author, await newUser(), await newUser()].entries())
        made.push(
          await newDiscussion(as, { categoryId: cat.id, title: `Topic ${i}`, body: i === 1 ? `About the ${word} plan` : 'Nothing here' }),
        );
      await moderate(made[2]!.id, 'hide');
      const list = async (query: string) => {
        const res = await api('GET', `/platform/discussions?${query}`, agent);
        expect(res.status, res.text).to.equal(200);
        return res.json;
      };
      expect((await list(`categoryId=${cat.id}`)).items.map((x: Json) => x.id)).to.deep.equal(made.map((x) => x.id).reverse());
      expect((await list(`categoryId=${cat.id}&status=HIDDEN`)).items.map((x: Json) => x.id)).to.deep.equal([made[2]!.id]);
      expect((await list(`categoryId=${cat.id}&status=DELETED`)).items).to.deep.equal([]);
      expect((await list(`search=${word}`)).items.map((x: Json) => x.id)).to.deep.equal([made[1]!.id]);
      expect((await list(`search=${encodeURIComponent(`"${word} plan"`)}&categoryId=${cat.id}`)).items).to.have.length(1);
      expect((await list(`search=${word}&status=HIDDEN`)).items).to.deep.equal([]);
      const page1 = await list(`categoryId=${cat.id}&limit=2`);
      expect(page1.items).to.have.length(2);
      expect(page1.nextCursor).to.equal(page1.items[1].id);
      const page2 = await list(`categoryId=${cat.id}&limit=2&cursor=${page1.nextCursor}`);
      expect(page2.items.map((x: Json) => x.id)).to.deep.equal([made[0]!.id]);
      expect(page2.nextCursor).to.equal(null);
      expect(page2.items[0]).to.include({
        status: 'PUBLISHED',
        authorUserId: author.userId,
        authorTenantId: author.tenantId,
        openReportCount: 0,
      });
      expect((await list(`categoryId=${uuidv7()}`)).items).to.deep.equal([]);
      for (const query of [
        'status=OPEN',
        'categoryId=x',
        'search=a',
        `search=${'x'.repeat(121)}`,
        'cursor=abc',
        'limit=0',
        'limit=101',
        'sort=top',
      ])
        expectProblem(await api('GET', `/platform/discussions?${query}`, agent), 400, 'validation_failed');
      expect((await list(`search=${'x'.repeat(120)}`)).items).to.deep.equal([]);
      expect((await list('search=%21%21')).items).to.be.an('array');
      expectProblem(await api('GET', `/platform/discussions/${uuidv7()}/comments`, agent), 404, 'discussion_not_found');
    });

    it('purges a discussion with every comment, vote, report and view (checked in SQL)', async () => {
      const d = await newDiscussion(author);
      const reader = await newUser();
      const top = await newComment(reader, d.id);
      const reply = await newComment(author, d.id, { parentId: top.id });
      await api('POST', `/discussions/${d.id}/vote`, reader, { value: 1 });
      await api('POST', `/comments/${top.id}/vote`, author, { value: -1 });
      await api('POST', `/comments/${reply.id}/vote`, reader, { value: 1 });
      expect((await api('POST', `/discussions/${d.id}/report`, reader, { reason: 'SPAM' })).status).to.equal(201);
      expect((await api('POST', `/comments/${reply.id}/report`, reader, { reason: 'ABUSE', details: 'rude' })).status).to.equal(201);
      await api('POST', `/discussions/${d.slug}/view`, reader);
      const keep = await newDiscussion(await newUser());
      await newComment(reader, keep.id);
      const left = async (id: string) => ({
        discussions: await count('SELECT count(*) AS n FROM community_discussions WHERE id = $1', [id]),
        comments: await count('SELECT count(*) AS n FROM community_comments WHERE discussion_id = $1', [id]),
        discussionVotes: await count('SELECT count(*) AS n FROM community_discussion_votes WHERE discussion_id = $1', [id]),
        commentVotes: await count('SELECT count(*) AS n FROM community_comment_votes WHERE comment_id = ANY($1::uuid[])', [
          [top.id, reply.id],
        ]),
        reports: await count('SELECT count(*) AS n FROM community_reports WHERE discussion_id = $1 OR comment_id = ANY($2::uuid[])', [
          id,
          [top.id, reply.id],
        ]),
        views: await count('SELECT count(*) AS n FROM community_discussion_viewers WHERE discussion_id = $1', [id]),
      });
      expect(await left(d.id)).to.deep.equal({ discussions: 1, comments: 2, discussionVotes: 1, commentVotes: 2, reports: 2, views: 1 });
      const purged = await api('DELETE', `/platform/discussions/${d.id}`, agent);
      expect(purged.status, purged.text).to.equal(204);
      expect(await left(d.id)).to.deep.equal({ discussions: 0, comments: 0, discussionVotes: 0, commentVotes: 0, reports: 0, views: 0 });
      expect(await count('SELECT count(*) AS n FROM community_comments WHERE discussion_id = $1', [keep.id])).to.equal(1);
      expectProblem(await api('GET', `/discussions/${d.slug}`), 404, 'discussion_not_found');
      expectProblem(await api('DELETE', `/platform/discussions/${d.id}`, agent), 404, 'discussion_not_found');
      const [entry] = await db("SELECT before FROM audit_log WHERE resource_id = $1 AND action = 'community_discussion.purge'", [d.id]);
      expect(entry.before).to.include({ slug: d.slug, comments: 2, reports: 2 });
    });
  });

  describe('reports', () => {
    it('takes reports once per user and target, and closes each OPEN report once', async () => {
      const d = await newDiscussion(author);
      const c = await newComment(author, d.id);
      const reporter = await newUser();
      const report = (path: string, body: unknown, as: As = reporter) => api('POST', path, as, body);
      const r1 = await report(`/discussions/${d.id}/report`, { reason: 'SPAM', details: 'Links to a shop' });
      expect(r1.status, r1.text).to.equal(201);
      expect(r1.json).to.include({
        targetType: 'DISCUSSION',
        discussionId: d.id,
        commentId: null,
        status: 'OPEN',
        reason: 'SPAM',
        reporterUserId: reporter.userId,
        reporterTenantId: reporter.tenantId,
      });
      expectProblem(await report(`/discussions/${d.id}/report`, { reason: 'ABUSE' }), 409, 'already_reported');
      const r2 = await report(`/comments/${c.id}/report`, { reason: 'OFF_TOPIC' });
      expect(r2.json).to.include({ targetType: 'COMMENT', commentId: c.id, commentStatus: 'PUBLISHED', discussionId: d.id });
      const r3 = await report(`/discussions/${d.id}/report`, { reason: 'OTHER' }, agent);
      for (const body of [
        {},
        { reason: 'BORING' },
        { reason: 'SPAM', details: '' },
        { reason: 'SPAM', details: 'x'.repeat(1001) },
        { reason: 'SPAM', x: 1 },
      ])
        expectProblem(await report(`/discussions/${d.id}/report`, body), 400, 'validation_failed');
      expectProblem(await report(`/discussions/${d.id}/report`, { reason: 'SPAM' }, { headers: {} }), 401, 'unauthorized');
      expectProblem(await report(`/discussions/${uuidv7()}/report`, { reason: 'SPAM' }), 404, 'discussion_not_found');

      const open = await api('GET', '/platform/reports?status=OPEN&limit=100', agent);
      expect(open.json.items.map((r: Json) => r.id)).to.include.members([r1.json.id, r2.json.id, r3.json.id]);
      expect(
        (await api('GET', `/platform/discussions?search=${encodeURIComponent(d.title)}`, agent)).json.items[0].openReportCount,
      ).to.equal(2);

      const resolve = (id: string, body: unknown) => api('PATCH', `/platform/reports/${id}`, agent, body);
      const resolved = await resolve(r1.json.id, { status: 'RESOLVED', note: 'Hid the links' });
      expect(resolved.status, resolved.text).to.equal(200);
      expect(resolved.json).to.include({ status: 'RESOLVED', resolvedBy: agent.userId, resolutionNote: 'Hid the links' });
      expect(resolved.json.resolvedAt).to.be.a('string');
      expect((await resolve(r2.json.id, { status: 'DISMISSED' })).json).to.include({ status: 'DISMISSED', resolutionNote: null });
      for (const [id, status] of [
        [r1.json.id, 'DISMISSED'],
        [r1.json.id, 'RESOLVED'],
        [r2.json.id, 'RESOLVED'],
      ])
        expectProblem(await resolve(id, { status }), 409, 'report_already_closed');
      for (const body of [{ status: 'OPEN' }, {}, { status: 'RESOLVED', note: '' }, { status: 'RESOLVED', note: 'x'.repeat(1001) }])
        expectProblem(await resolve(r3.json.id, body), 400, 'validation_failed');
      expectProblem(await resolve(uuidv7(), { status: 'RESOLVED' }), 404, 'report_not_found');
      // Once closed, the same user may report the same discussion again.
      expect((await report(`/discussions/${d.id}/report`, { reason: 'ABUSE' })).status).to.equal(201);
      const closed = (await api('GET', '/platform/reports?status=RESOLVED&limit=100', agent)).json.items.map((r: Json) => r.id);
      expect(closed).to.include(r1.json.id);
      expect(closed).not.to.include(r2.json.id);
      const audited = (await db('SELECT action FROM audit_log WHERE resource_id = ANY($1::text[])', [[r1.json.id, r2.json.id]])).map(
        (r) => r.action,
      );
      expect(audited.sort()).to.deep.equal([
        'community_report.create',
        'community_report.create',
        'community_report.resolve',
        'community_report.resolve',
      ]);
    });

    it('pages the report queue oldest first and checks its bounds', async () => {
      const d = await newDiscussion(author);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1)
        ids.push((await api('POST', `/discussions/${d.id}/report`, await newUser(), { reason: 'SPAM' })).json.id);
      const before = ids[0]!;
      const cursor =
        (await db('SELECT id FROM community_reports WHERE id < $1 ORDER BY id DESC LIMIT 1', [before]))[0]?.id ??
        '00000000-0000-0000-0000-000000000000';
      const page = await api('GET', `/platform/reports?status=OPEN&limit=2&cursor=${cursor}`, agent);
      expect(page.status, page.text).to.equal(200);
      expect(page.json.items.map((r: Json) => r.id)).to.deep.equal(ids.slice(0, 2));
      expect(page.json.nextCursor).to.equal(ids[1]);
      const next = await api('GET', `/platform/reports?status=OPEN&limit=2&cursor=${page.json.nextCursor}`, agent);
      expect(next.json.items[0].id).to.equal(ids[2]);
      for (const query of ['status=CLOSED', 'cursor=x', 'limit=0', 'limit=101', 'limit=1.5', 'other=1'])
        expectProblem(await api('GET', `/platform/reports?${query}`, agent), 400, 'validation_failed');
    });
  });
});
