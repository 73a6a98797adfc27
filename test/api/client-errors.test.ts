/**
 * Client errors (docs/client-errors.md): the public intake (grouping by fingerprint, batch and field
 * bounds, the per-address rate limit, the store a page names), the event list with every filter and
 * bound, the grouped view and statistics, group statuses (a resolved group that recurs reopens, an
 * ignored one stays ignored), comments, who may call each row, and the retention pruning. Every test
 * reports under an app name of its own, so errors reported by other files never count here; this
 * file has a rate limiter of its own (startIsolatedServer).
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem, platformStaff, startIsolatedServer, type Staff } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';
import { relayHeaders } from '../../api/http/client-relay';
import { uuidv7 } from '../../storage/ids';
import { systemContext } from '../../storage/request-context';
import { recordClientErrors } from '../../api/client-errors/intake.service';
import { pruneClientErrors } from '../../api/client-errors/client-errors.pruner';
import { fingerprintOf, normaliseMessage, topFrame } from '../../api/client-errors/client-errors.fingerprint';
import type { Config } from '../../lib/config';

const EVENTS = '/api/v1/client-errors/events';
const LIST = '/api/v1/client-errors';
const GROUPED = '/api/v1/client-errors/grouped';
const STATS = '/api/v1/client-errors/stats';
const GROUPS = '/api/v1/client-errors/groups';
const HOUR = 3_600_000;
/** Letters only (normalising keeps them), so this run's groups are its own even in a database earlier runs left data in. */
const RUN = Array.from({ length: 12 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

const stackAt = (fn: string, line: number) =>
  `Error: boom\n    at ${fn} (https://shop.example/assets/theme/theme.js?v=3:${line}:7)\n    at HTMLDocument.<anonymous> (https://shop.example/assets/theme/theme.js:1:1)`;

describe('client errors', function () {
  this.timeout(120_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started), { start: () => startIsolatedServer() });
  let agent: Staff;
  let admin: Staff;
  let sales: Staff;
  let m: Merchant;
  let ipSeq = 0;

  /** An app name no other test uses (1 to 40 characters). */
  const newApp = () => `t-${uuidv7().replace(/-/g, '').slice(-20)}`;
  /** A client address of its own per call, so the rate limit only counts where a test means it to. */
  const freshIp = () => `10.${(ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq++ & 255}`;
  const settings = (): Config => server.runtime.services.config;
  const ctx = () => systemContext(server.runtime.dataSource, uuidv7());
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);

  const report = (body: unknown, ip = freshIp(), headers: Record<string, string> = {}): Promise<TestResponse> =>
    call(server, 'POST', EVENTS, { body, headers: { ...relayHeaders(server.runtime.config.appSecret, ip), ...headers } });
  const get = (path: string, as: { headers: Record<string, string> } = agent) => call(server, 'GET', path, { headers: as.headers });
  async function reported(body: Record<string, unknown>): Promise<string[]> {
    const res = await report(body);
    expect(res.status, res.text).to.equal(202);
    return res.json.fingerprints;
  }
  const eventCount = async (app: string) => Number((await db('SELECT count(*) AS n FROM client_error_events WHERE app = $1', [app]))[0].n);

  before(async () => {
    agent = await platformStaff(server, 'support_agent', { name: `Agent ${uuidv7().slice(-6)}` });
    admin = await platformStaff(server, 'platform_admin');
    sales = await platformStaff(server, 'sales_rep');
    m = suite.addMerchant(await merchant(server));
  });

  describe('fingerprints', () => {
    it('normalise numbers, ids, e-mail addresses and URLs, and keep the top frame of the stack', () => {
      expect(normaliseMessage('Uncaught TypeError: Product 123 not found at https://x.example/a?b=1 (0x1f)')).to.equal(
        'TypeError: Product <n> not found at <url> (<n>)',
      );
      expect(normaliseMessage('order 0198a3c4-1b2c-7d3e-8f40-123456789abc for a@b.example hash deadbeef42 v1 h2')).to.equal(
        'order <id> for <email> hash <id> v1 h2',
      );
      expect(topFrame(stackAt('loadCart', 12))).to.equal('loadCart /assets/theme/theme.js:12:7');
      expect(topFrame('boom@https://x.example/assets/theme/theme.js:3:4')).to.equal('boom /assets/theme/theme.js:3:4');
      expect(topFrame('no frames here')).to.equal('');
      const a = fingerprintOf({ kind: 'window', message: 'Product 1 not found', stack: stackAt('f', 1) });
      expect(a.fingerprint).to.match(/^[0-9a-f]{32}$/);
      expect(fingerprintOf({ kind: 'window', message: 'Product 99 not found', stack: stackAt('f', 1) }).fingerprint).to.equal(
        a.fingerprint,
      );
      expect(fingerprintOf({ kind: 'manual', message: 'Product 1 not found', stack: stackAt('f', 1) }).fingerprint).not.to.equal(
        a.fingerprint,
      );
    });

    it('groups one kind, normalised message and top frame into one group; another top frame is another group', async () => {
      const app = newApp();
      const fps = await reported({
        app,
        events: [
          { kind: 'window', message: `${RUN} Cannot load product 17 from https://a.example/p/17`, stack: stackAt('loadProduct', 40) },
          { kind: 'window', message: `${RUN} Cannot load product 942 from https://b.example/p/942?x=1`, stack: stackAt('loadProduct', 40) },
          {
            kind: 'window',
            message: `${RUN} Cannot load product 5 from http://c.example/x#y`,
            stack: stackAt('loadProduct', 40),
          },
          { kind: 'window', message: `${RUN} Cannot load product 17 from https://a.example/p/17`, stack: stackAt('renderCart', 88) },
        ],
      });
      expect(fps).to.have.length(4);
      expect(fps[1]).to.equal(fps[0]);
      expect(fps[2]).to.equal(fps[0]);
      expect(fps[3]).not.to.equal(fps[0]);
      const grouped = await get(`${GROUPED}?app=${app}`);
      expect(grouped.status, grouped.text).to.equal(200);
      const byFp = Object.fromEntries(grouped.json.items.map((g: any) => [g.fingerprint, g]));
      expect(byFp[fps[0]!]).to.include({
        count: 3,
        totalCount: 3,
        kind: 'window',
        status: 'open',
        title: `${RUN} Cannot load product <n> from <url>`,
        topFrame: 'loadProduct /assets/theme/theme.js:40:7',
      });
      // The newest event of the group is its sample.
      expect(byFp[fps[0]!].sample).to.include({ app, level: 'error', message: `${RUN} Cannot load product 5 from http://c.example/x#y` });
      expect(byFp[fps[3]!]).to.include({ count: 1, topFrame: 'renderCart /assets/theme/theme.js:88:7' });
    });
  });

  describe('POST /client-errors/events', () => {
    it('records the store a page names with its tenant; an unknown store is 404 and records nothing', async () => {
      const app = newApp();
      const res = await report(
        { app, storeId: m.storeId, events: [{ kind: 'api', level: 'warning', message: 'GET /api/v1/x answered 404', url: 'https://s/p' }] },
        freshIp(),
        { 'User-Agent': 'TestBrowser/1.0' },
      );
      expect(res.status, res.text).to.equal(202);
      expect(res.json).to.deep.include({ accepted: 1 });
      const list = await get(`${LIST}?app=${app}`);
      expect(list.json.items).to.have.length(1);
      expect(list.json.items[0]).to.include({
        storeId: m.storeId,
        tenantId: m.owner.tenantId,
        kind: 'api',
        level: 'warning',
        url: 'https://s/p',
        userAgent: 'TestBrowser/1.0',
        stack: null,
      });
      expectProblem(await report({ app, storeId: uuidv7(), events: [{ kind: 'window', message: 'x' }] }), 404, 'store_not_found');
      expect(await eventCount(app)).to.equal(1);
      // A merchant's token changes nothing: the intake is public.
      expect((await report({ app, events: [{ kind: 'manual', message: 'y' }] }, freshIp(), m.headers)).status).to.equal(202);
    });

    it('bounds the batch and every field; a refused batch records nothing', async () => {
      const app = newApp();
      const ev = (fields: Record<string, unknown> = {}) => ({ kind: 'window', message: 'bounded', ...fields });
      const refused = async (body: unknown, path?: string) => {
        const res = await report(body);
        expectProblem(res, 400, 'validation_failed');
        if (path) expect(res.json.errors.map((e: any) => e.path)).to.include(path);
      };
      await refused({ app, events: [] }, 'body.events');
      await refused({ app, events: Array.from({ length: 51 }, () => ev()) }, 'body.events');
      await refused({ app }, 'body.events');
      await refused({ events: [ev()] }, 'body.app');
      await refused({ app: 'a'.repeat(41), events: [ev()] }, 'body.app');
      await refused({ app: 'has space', events: [ev()] }, 'body.app');
      await refused({ app, events: [ev({ message: 'm'.repeat(1001) })] }, 'body.events[0].message');
      await refused({ app, events: [ev({ message: '' })] }, 'body.events[0].message');
      await refused({ app, events: [ev({ stack: 's'.repeat(8001) })] }, 'body.events[0].stack');
      await refused({ app, events: [ev({ url: 'u'.repeat(2001) })] }, 'body.events[0].url');
      await refused({ app, events: [ev({ kind: 'php' })] }, 'body.events[0].kind');
      await refused({ app, events: [ev({ level: 'fatal' })] }, 'body.events[0].level');
      await refused({ app, events: [ev({ extra: 1 })] });
      await refused({ app, events: [ev({ message: 'nul \u0000 byte' })] });
      await refused({ app, events: [ev({ message: 'lone \ud800 surrogate' })] });
      await refused({ app, storeId: 'not-a-uuid', events: [ev()] }, 'body.storeId');
      await refused({ app, events: [ev({ message: 12 })] }, 'body.events[0].message');
      expect(await eventCount(app)).to.equal(0);
      const res = await report({
        app: 'a'.repeat(40),
        events: Array.from({ length: 50 }, (_, i) =>
          ev({ message: `m${i}`.padEnd(1000, 'x'), stack: 's'.repeat(8000), url: 'u'.repeat(2000) }),
        ),
      });
      expect(res.status, res.text).to.equal(202);
      expect(res.json.accepted).to.equal(50);
      await db(`DELETE FROM client_error_events WHERE app = $1`, ['a'.repeat(40)]);
    });

    it('limits batches per client address and minute: 429 with Retry-After, other addresses unaffected', async () => {
      const saved = settings().clientErrors;
      (settings() as { clientErrors: Config['clientErrors'] }).clientErrors = { ...saved, batchesPerMinute: 3 };
      try {
        const app = newApp();
        const ip = freshIp();
        const body = { app, events: [{ kind: 'window', message: 'limited' }] };
        for (let i = 0; i < 3; i += 1) expect((await report(body, ip)).status).to.equal(202);
        const limited = await report(body, ip);
        expectProblem(limited, 429, 'rate_limited');
        expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
        expect(await eventCount(app)).to.equal(3);
        expect((await report(body, freshIp())).status).to.equal(202);
      } finally {
        (settings() as { clientErrors: Config['clientErrors'] }).clientErrors = saved;
      }
    });
  });

  describe('GET /client-errors', () => {
    it('filters by app, level, kind, hours and search, newest first, and pages by cursor', async () => {
      const app = newApp();
      const other = newApp();
      const now = Date.now();
      const origin = { storeId: null, tenantId: null, userAgent: null };
      await recordClientErrors(
        ctx(),
        { app, events: [{ kind: 'window', level: 'error', message: 'old one 50% done' }] },
        origin,
        new Date(now - 30 * HOUR),
      );
      await recordClientErrors(
        ctx(),
        { app, events: [{ kind: 'api', level: 'warning', message: 'GET /api/v1/a answered 503' }] },
        origin,
        new Date(now - 2 * HOUR),
      );
      await recordClientErrors(
        ctx(),
        {
          app,
          events: [{ kind: 'section', level: 'info', message: 'Section hero omitted: over its ms budget', url: 'https://shop/needle' }],
        },
        origin,
        new Date(now - HOUR),
      );
      await recordClientErrors(
        ctx(),
        { app: other, events: [{ kind: 'window', level: 'error', message: 'other app' }] },
        origin,
        new Date(now - HOUR),
      );
      const messages = async (query: string) => {
        const res = await get(`${LIST}?${query}`);
        expect(res.status, res.text).to.equal(200);
        return res.json.items.map((e: any) => e.message);
      };
      expect(await messages(`app=${app}`)).to.deep.equal(['Section hero omitted: over its ms budget', 'GET /api/v1/a answered 503']);
      expect(await messages(`app=${app}&hours=48`)).to.have.length(3);
      expect(await messages(`app=${app}&hours=1`)).to.deep.equal([]);
      expect(await messages(`app=${app}&hours=720&level=warning`)).to.deep.equal(['GET /api/v1/a answered 503']);
      expect(await messages(`app=${app}&hours=720&kind=section`)).to.deep.equal(['Section hero omitted: over its ms budget']);
      expect(await messages(`app=${app}&hours=720&search=NEEDLE`)).to.have.length(1); // url, case-insensitive
      expect(await messages(`app=${app}&hours=720&search=50%25`)).to.deep.equal(['old one 50% done']);
      expect(await messages(`app=${app}&hours=720&search=5_%25`)).to.deep.equal([]); // _ and % are literal
      expect(await messages(`app=${other}`)).to.deep.equal(['other app']);

      const first = await get(`${LIST}?app=${app}&hours=720&limit=2`);
      expect(first.json.items).to.have.length(2);
      expect(first.json.nextCursor).to.be.a('string');
      const second = await get(`${LIST}?app=${app}&hours=720&limit=2&cursor=${first.json.nextCursor}`);
      expect(second.json.items.map((e: any) => e.message)).to.deep.equal(['old one 50% done']);
      expect(second.json.nextCursor).to.equal(null);
    });

    it('refuses every bound and a cursor it did not write', async () => {
      for (const query of [
        'limit=0',
        'limit=201',
        'limit=x',
        'hours=0',
        'hours=721',
        'hours=1.5',
        'level=fatal',
        'kind=php',
        `app=${'a'.repeat(41)}`,
        `search=${'s'.repeat(201)}`,
        `cursor=${'c'.repeat(121)}`,
        'cursor=not-a-cursor',
        `cursor=${Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url')}`,
        'unknown=1',
      ])
        expectProblem(await get(`${LIST}?${query}`), 400, 'validation_failed');
      for (const query of ['limit=1', 'limit=200', 'hours=1', 'hours=720', `search=${'s'.repeat(200)}`, 'app='])
        expect((await get(`${LIST}?${query}`)).status, query).to.equal(200);
    });
  });

  describe('grouped view and stats', () => {
    it('count the window by app, kind, level, status and hours, with the top groups', async () => {
      const app = newApp();
      const app2 = newApp();
      const now = Date.now();
      const origin = { storeId: null, tenantId: null, userAgent: null };
      const fp = (
        await recordClientErrors(
          ctx(),
          {
            app,
            events: [
              { kind: 'window', level: 'error', message: `${RUN} A failed 1`, stack: stackAt('a', 1) },
              { kind: 'window', level: 'warning', message: `${RUN} A failed 2`, stack: stackAt('a', 1) },
              { kind: 'window', level: 'error', message: `${RUN} A failed 3`, stack: stackAt('a', 1) },
              { kind: 'api', level: 'error', message: `${RUN} B failed`, stack: '' },
            ],
          },
          origin,
        )
      ).fingerprints;
      const [a, b] = [fp[0]!, fp[3]!];
      await recordClientErrors(
        ctx(),
        { app: app2, events: [{ kind: 'window', level: 'error', message: `${RUN} A failed 4`, stack: stackAt('a', 1) }] },
        origin,
      );
      await recordClientErrors(
        ctx(),
        { app, events: [{ kind: 'api', level: 'error', message: `${RUN} B failed` }] },
        origin,
        new Date(now - 50 * HOUR),
      );

      const grouped = async (query: string) => {
        const res = await get(`${GROUPED}?${query}`);
        expect(res.status, res.text).to.equal(200);
        return res.json.items.filter((g: any) => g.fingerprint === a || g.fingerprint === b).map((g: any) => [g.fingerprint, g.count]);
      };
      expect(await grouped(`app=${app}`)).to.deep.equal([
        [a, 3],
        [b, 1],
      ]);
      expect(await grouped(`app=${app}&hours=72`)).to.deep.equal([
        [a, 3],
        [b, 2],
      ]);
      expect(await grouped(`app=${app2}`)).to.deep.equal([[a, 1]]);
      expect(await grouped(`app=${app}&kind=api`)).to.deep.equal([[b, 1]]);
      expect(await grouped(`app=${app}&level=warning`)).to.deep.equal([[a, 1]]);
      expect(await grouped(`app=${app}&limit=1`)).to.deep.equal([[a, 3]]);
      const one = (await get(`${GROUPED}?app=${app}`)).json.items.find((g: any) => g.fingerprint === a);
      expect(one).to.include({ totalCount: 4, commentCount: 0 });
      expect(one.apps).to.deep.equal([app]);
      expect(one.levels).to.have.members(['error', 'warning']);
      await call(server, 'PATCH', `${GROUPS}/${b}`, { headers: agent.headers, body: { status: 'resolved' } });
      expect(await grouped(`app=${app}`)).to.deep.equal([[a, 3]]);
      expect(await grouped(`app=${app}&status=resolved`)).to.deep.equal([[b, 1]]);
      expect(await grouped(`app=${app}&status=all`)).to.have.length(2);

      const stats = await get(`${STATS}?app=${app}&status=all`);
      expect(stats.status, stats.text).to.equal(200);
      expect(stats.json).to.include({ totalEvents: 4, groups: 2 });
      expect(stats.json.byLevel).to.deep.equal([
        { level: 'error', count: 3 },
        { level: 'warning', count: 1 },
      ]);
      expect(stats.json.byKind).to.deep.equal([
        { kind: 'window', count: 3 },
        { kind: 'api', count: 1 },
      ]);
      expect(stats.json.byApp).to.deep.equal([{ app, count: 4 }]);
      expect(stats.json.hourly).to.deep.equal([{ hour: new Date(Math.floor(now / HOUR) * HOUR).toISOString(), count: 4 }]);
      expect(stats.json.topGroups.map((g: any) => [g.fingerprint, g.count])).to.deep.equal([
        [a, 3],
        [b, 1],
      ]);
      expect((await get(`${STATS}?app=${app}&status=all&limit=1`)).json.topGroups).to.have.length(1);
      expect((await get(`${STATS}?app=${app}&status=all&hours=72`)).json.totalEvents).to.equal(5);
      expect((await get(`${STATS}?app=${app}`)).json).to.include({ totalEvents: 3, groups: 1 }); // open only, by default
      expect((await get(`${STATS}?app=${app}&status=all&kind=api&level=error`)).json.totalEvents).to.equal(1);
    });

    it('refuses every bound of both', async () => {
      for (const path of [GROUPED, STATS]) {
        for (const query of [
          'limit=0',
          'limit=101',
          'hours=0',
          'hours=721',
          'status=closed',
          'kind=php',
          'level=fatal',
          `app=${'a'.repeat(41)}`,
          'cursor=x',
        ])
          expectProblem(await get(`${path}?${query}`), 400, 'validation_failed');
        for (const query of ['limit=1', 'limit=100', 'hours=1', 'hours=720', 'status=all', 'status=ignored'])
          expect((await get(`${path}?${query}`)).status, `${path}?${query}`).to.equal(200);
      }
    });
  });

  describe('group statuses', () => {
    it('resolves a group, which reopens when it recurs; an ignored group stays ignored', async () => {
      const app = newApp();
      const body = (message: string) => ({ app, events: [{ kind: 'window', message: `${RUN} ${message}`, stack: stackAt('s', 5) }] });
      const [fp] = await reported(body('Status 1'));
      const patch = (status: unknown, as: Staff = agent, key = fp) =>
        call(server, 'PATCH', `${GROUPS}/${key}`, { headers: as.headers, body: { status } });
      const resolved = await patch('resolved');
      expect(resolved.status, resolved.text).to.equal(200);
      expect(resolved.json).to.include({ fingerprint: fp, status: 'resolved', reopenedAt: null });
      expect(resolved.json.statusChangedAt).to.be.a('string');
      const audit = await db(`SELECT action, before, after, actor_id FROM audit_log WHERE resource_id = $1 ORDER BY id`, [fp]);
      expect(audit).to.deep.equal([
        { action: 'client_error_group.set_status', before: { status: 'open' }, after: { status: 'resolved' }, actor_id: agent.userId },
      ]);
      // The same status again changes nothing.
      expect((await patch('resolved')).json.status).to.equal('resolved');
      expect(await db(`SELECT 1 FROM audit_log WHERE resource_id = $1`, [fp])).to.have.length(1);

      await reported(body('Status 2'));
      const reopened = (await get(`${GROUPED}?app=${app}`)).json.items[0];
      expect(reopened).to.include({ fingerprint: fp, status: 'open', count: 2 });
      expect(reopened.reopenedAt).to.be.a('string');

      expect((await patch('ignored', admin)).json.status).to.equal('ignored');
      await reported(body('Status 3'));
      expect((await get(`${GROUPED}?app=${app}&status=ignored`)).json.items[0]).to.include({
        fingerprint: fp,
        status: 'ignored',
        count: 3,
      });
      expect((await get(`${GROUPED}?app=${app}`)).json.items).to.deep.equal([]);
      expect((await patch('open')).json.status).to.equal('open');

      expectProblem(await patch('all'), 400, 'validation_failed');
      expectProblem(await patch('closed'), 400, 'validation_failed');
      expectProblem(await patch('resolved', agent, 'a'.repeat(32)), 404, 'client_error_group_not_found');
      expectProblem(await patch('resolved', agent, 'bad.fingerprint'), 400, 'validation_failed');
      expectProblem(await patch('resolved', agent, 'a'.repeat(129)), 400, 'validation_failed');
      expectProblem(await call(server, 'PATCH', `${GROUPS}/${fp}`, { headers: agent.headers, body: {} }), 400, 'validation_failed');
    });
  });

  describe('comments', () => {
    it('adds and lists comments on a group, oldest first, at most 500', async () => {
      const app = newApp();
      const [fp] = await reported({ app, events: [{ kind: 'manual', message: `${RUN} Commented` }] });
      const add = (body: unknown, key = fp) => call(server, 'POST', `${GROUPS}/${key}/comments`, { headers: agent.headers, body });
      const first = await add({ body: '  Looking into it.  ' });
      expect(first.status, first.text).to.equal(201);
      expect(first.json).to.include({ fingerprint: fp, body: 'Looking into it.' });
      const [{ name }] = await db('SELECT name FROM users WHERE id = $1', [agent.userId]);
      expect(first.json.author).to.deep.equal({ id: agent.userId, name });
      await call(server, 'POST', `${GROUPS}/${fp}/comments`, { headers: admin.headers, body: { body: 'Fixed in the next release.' } });
      const list = await get(`${GROUPS}/${fp}/comments`);
      expect(list.status, list.text).to.equal(200);
      expect(list.json.items.map((c: any) => c.body)).to.deep.equal(['Looking into it.', 'Fixed in the next release.']);
      expect((await get(`${GROUPED}?app=${app}`)).json.items[0].commentCount).to.equal(2);
      expect((await db(`SELECT action FROM audit_log WHERE resource_id = $1`, [fp])).map((r) => r.action)).to.deep.equal([
        'client_error_group.comment',
        'client_error_group.comment',
      ]);

      expectProblem(await add({ body: '   ' }), 400, 'validation_failed');
      expectProblem(await add({ body: 'x'.repeat(5001) }), 400, 'validation_failed');
      expect((await add({ body: 'x'.repeat(5000) })).status).to.equal(201);
      expectProblem(await add({}), 400, 'validation_failed');
      expectProblem(await add({ body: 'x' }, 'f'.repeat(32)), 404, 'client_error_group_not_found');
      expectProblem(await get(`${GROUPS}/${'f'.repeat(32)}/comments`), 404, 'client_error_group_not_found');
      await db(`UPDATE client_error_groups SET comment_count = 500 WHERE fingerprint = $1`, [fp]);
      expectProblem(await add({ body: 'one too many' }), 409, 'client_error_comment_limit_reached');
      expect((await get(`${GROUPS}/${fp}/comments`)).json.items).to.have.length(3);
    });
  });

  describe('roles', () => {
    it('lets only platform admins and support agents read and triage; the intake is public', async () => {
      const [fp] = await reported({ app: newApp(), events: [{ kind: 'manual', message: 'Roles' }] });
      const rows: Array<[string, string, unknown?]> = [
        ['GET', LIST],
        ['GET', GROUPED],
        ['GET', STATS],
        ['PATCH', `${GROUPS}/${fp}`, { status: 'open' }],
        ['GET', `${GROUPS}/${fp}/comments`],
        ['POST', `${GROUPS}/${fp}/comments`, { body: 'hi' }],
      ];
      for (const [method, path, body] of rows) {
        expectProblem(await call(server, method, path, { body }), 401, 'unauthorized');
        expectProblem(await call(server, method, path, { body, headers: m.headers }), 403, 'forbidden');
        expectProblem(await call(server, method, path, { body, headers: sales.headers }), 403, 'platform_role_required');
        for (const who of [agent, admin])
          expect((await call(server, method, path, { body, headers: who.headers })).status, `${method} ${path}`).to.be.oneOf([200, 201]);
      }
    });
  });

  describe('retention', () => {
    it('prunes events, hourly counts and quiet groups past the retention; ignored groups stay', async () => {
      const app = newApp();
      const now = new Date();
      const origin = { storeId: null, tenantId: null, userAgent: null };
      const old = new Date(now.getTime() - 40 * 24 * HOUR);
      const [quiet, ignored, busy] = (
        await recordClientErrors(
          ctx(),
          {
            app,
            events: [
              { kind: 'manual', level: 'error', message: `${RUN} Quiet` },
              { kind: 'manual', level: 'error', message: `${RUN} Ignored` },
              { kind: 'manual', level: 'error', message: `${RUN} Busy` },
            ],
          },
          origin,
          old,
        )
      ).fingerprints as [string, string, string];
      await recordClientErrors(ctx(), { app, events: [{ kind: 'manual', level: 'error', message: `${RUN} Busy` }] }, origin, now);
      await db(`UPDATE client_error_groups SET status = 'ignored' WHERE fingerprint = $1`, [ignored]);
      await db(`INSERT INTO client_error_comments (id, fingerprint, body) VALUES ($1, $2, 'gone with it')`, [uuidv7(), quiet]);

      const pruned = await pruneClientErrors(ctx(), 30, now);
      expect(pruned.events).to.be.at.least(3);
      expect(pruned.groups).to.be.at.least(1);
      expect(await eventCount(app)).to.equal(1);
      const groups = await db(`SELECT fingerprint FROM client_error_groups WHERE fingerprint = ANY($1)`, [[quiet, ignored, busy]]);
      expect(groups.map((g) => g.fingerprint)).to.have.members([ignored, busy]);
      expect(await db(`SELECT 1 FROM client_error_comments WHERE fingerprint = $1`, [quiet])).to.deep.equal([]);
      expect(
        await db(`SELECT 1 FROM client_error_hourly WHERE app = $1 AND hour < $2`, [app, new Date(now.getTime() - 30 * 24 * HOUR)]),
      ).to.deep.equal([]);
      // Within the retention nothing goes.
      expect(await pruneClientErrors(ctx(), 30, now)).to.deep.include({ events: 0 });
      expect(await eventCount(app)).to.equal(1);
    });
  });
});
