/**
 * The ticket list: every filter and its bounds, the 8 sorts with keyset paging (no duplicates, no
 * gaps, the order each sort promises), cursors (an unknown one is a 400), and the merchant's view.
 * The database is shared, so each test scopes its reads to its own tickets (a unique word in q, or
 * the assignee it made).
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { supportHelpers, TICKETS, type Staff } from './support.helpers';

const RANK: Record<string, number> = { URGENT: 4, HIGH: 3, NORMAL: 2, LOW: 1 };

describe('support ticket list', function () {
  this.timeout(120_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const h = supportHelpers(() => server, suite);
  let agent: Staff;
  let other: Staff;
  let a: Merchant;
  let b: Merchant;
  const word = `list${uuidv7().slice(-10)}`;
  const tickets: Array<Record<string, any>> = [];

  before(async () => {
    agent = await h.staff('support_agent');
    other = await h.staff('support_agent');
    a = await h.newMerchant();
    b = await h.newMerchant();
    const priorities = ['LOW', 'NORMAL', 'HIGH', 'URGENT', 'NORMAL', 'HIGH', 'LOW', 'URGENT', 'NORMAL', 'NORMAL', 'HIGH', 'LOW', 'URGENT'];
    for (const [i, priority] of priorities.entries()) {
      const m = i % 3 === 0 ? b : a;
      tickets.push(await h.submit(m, { subject: `Ticket ${i} ${word}`, priority }));
    }
    // Message counts 1..4 in a pattern that differs from creation order; ties on purpose.
    for (const [i, t] of tickets.entries()) for (let k = 0; k < (i * 7) % 4; k++) await h.reply(agent, t.id, { body: `reply ${k}` });
    // One PLATFORM ticket, some assigned, one resolved.
    const platform = await call(server, 'POST', '/api/v1/support/platform-tickets', {
      headers: agent.headers,
      body: { tenantId: a.owner.tenantId, subject: `Platform ${word}`, body: 'From us' },
    });
    expect(platform.status, platform.text).to.equal(201);
    tickets.push(platform.json);
    await call(server, 'POST', `${TICKETS}/assign-to-me`, { headers: agent.headers, body: { ids: tickets.slice(0, 4).map((t) => t.id) } });
    await call(server, 'POST', `${TICKETS}/assign-to-me`, { headers: other.headers, body: { ids: [tickets[4]!.id] } });
    await h.patch(agent, tickets[5]!.id, { status: 'RESOLVED' });
  });

  /** Every page of the list for `query` (q scoped to this file's tickets) at page size `limit`. */
  async function readAll(
    query: string,
    limit: number,
    as: { headers: Record<string, string> } = agent,
  ): Promise<Array<Record<string, any>>> {
    const items: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const res = await h.list(as, `q=${word}&limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items.length).to.be.at.most(limit);
      items.push(...res.json.items);
      cursor = res.json.nextCursor;
      if (cursor === null) return items;
      expect(cursor).to.equal(res.json.items[res.json.items.length - 1].id);
    }
    throw new Error('too many pages');
  }

  const ids = (items: Array<Record<string, any>>) => items.map((t) => t.id as string);

  describe('sorts with cursor paging', () => {
    const key: Record<string, (t: Record<string, any>) => number> = {
      priority: (t) => RANK[t.priority]!,
      createdAt: (t) => Date.parse(t.createdAt),
      messages: (t) => t.messageCount,
      ticketNumber: (t) => t.ticketNumber,
    };
    for (const field of Object.keys(key))
      for (const direction of ['asc', 'desc'] as const)
        it(`${field}-${direction}: every ticket once, in order, ties by id`, async () => {
          const whole = await readAll(`sort=${field}-${direction}`, 200);
          expect(whole).to.have.length(tickets.length);
          for (const limit of [1, 3, 5]) expect(ids(await readAll(`sort=${field}-${direction}`, limit))).to.deep.equal(ids(whole));
          const sign = direction === 'asc' ? 1 : -1;
          for (let i = 1; i < whole.length; i++) {
            const [prev, next] = [whole[i - 1]!, whole[i]!];
            const cmp = key[field]!(prev) - key[field]!(next);
            expect(cmp * sign, `${field} order at ${i}`).to.be.at.most(0);
            if (cmp === 0) expect(sign * (prev.id < next.id ? -1 : 1), `tie at ${i}`).to.equal(-1);
          }
          expect(new Set(ids(whole)).size).to.equal(whole.length);
        });

    it('defaults to createdAt-desc', async () => {
      expect(ids(await readAll('', 200))).to.deep.equal(ids(await readAll('sort=createdAt-desc', 200)));
    });

    it('answers 400 for a cursor that is no ticket, and for unknown sorts', async () => {
      expectProblem(await h.list(agent, `cursor=${uuidv7()}`), 400, 'validation_failed');
      expectProblem(await h.list(agent, 'cursor=not-a-uuid'), 400, 'validation_failed');
      expectProblem(await h.list(agent, 'sort=subject-asc'), 400, 'validation_failed');
    });
  });

  describe('filters', () => {
    const only = async (query: string) => new Set(ids(await readAll(query, 200)));
    const expected = (pick: (t: Record<string, any>, i: number) => boolean) => new Set(tickets.filter(pick).map((t) => t.id as string));

    it('audience, status, priority', async () => {
      expect(await only('audience=PLATFORM')).to.deep.equal(expected((_, i) => i === 13));
      expect(await only('audience=STORE')).to.deep.equal(expected((_, i) => i !== 13));
      expect(await only('status=RESOLVED')).to.deep.equal(expected((_, i) => i === 5));
      expect(await only('status=OPEN')).to.deep.equal(expected((_, i) => i !== 5));
      expect(await only('priority=URGENT')).to.deep.equal(expected((t) => t.priority === 'URGENT'));
      expect(await only('priority=NORMAL&status=OPEN')).to.deep.equal(expected((t) => t.priority === 'NORMAL'));
    });

    it('assigned and assigneeId', async () => {
      expect(await only(`assigneeId=${agent.userId}`)).to.deep.equal(expected((_, i) => i < 4));
      expect(await only(`assigneeId=${other.userId}`)).to.deep.equal(expected((_, i) => i === 4));
      expect(await only('assigned=true')).to.deep.equal(expected((_, i) => i < 5));
      expect(await only('assigned=false')).to.deep.equal(expected((_, i) => i >= 5));
    });

    it('createdFrom and createdTo, both inclusive days (UTC)', async () => {
      const today = new Date().toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const all = expected(() => true);
      // The tickets were made just now: today (a test running across midnight UTC may see them on two days).
      const day = tickets[0]!.createdAt.slice(0, 10);
      expect(await only(`createdFrom=${day}&createdTo=${day}`)).to.deep.equal(expected((t) => t.createdAt.slice(0, 10) === day));
      expect(await only(`createdFrom=${yesterday}&createdTo=${tomorrow}`)).to.deep.equal(all);
      expect(await only(`createdFrom=${tomorrow}`)).to.deep.equal(new Set());
      expect(await only(`createdTo=${yesterday}`)).to.deep.equal(new Set());
      expect(today).to.match(/^\d{4}-\d{2}-\d{2}$/);
      for (const bad of ['2026-13-01', '2026-1-01', 'yesterday'])
        expectProblem(await h.list(agent, `createdFrom=${bad}`), 400, 'validation_failed');
    });

    it('q over the subject and public messages', async () => {
      const distinct = `needle${uuidv7().slice(-8)}`;
      await h.reply(agent, tickets[2]!.id, { body: `We found the ${distinct}` });
      await h.reply(agent, tickets[3]!.id, { body: `Note ${distinct}`, internal: true });
      expect(ids((await h.list(agent, `q=${distinct}`)).json.items)).to.deep.equal([tickets[2]!.id]);
      expect(ids((await h.list(agent, `q=${encodeURIComponent(`"Ticket 7 ${word}"`)}`)).json.items)).to.deep.equal([tickets[7]!.id]);
      expectProblem(await h.list(agent, `q=${'x'.repeat(121)}`), 400, 'validation_failed');
      expectProblem(await h.list(agent, 'q='), 400, 'validation_failed');
    });

    it('bounds of limit, slaBreachHours and the enums', async () => {
      for (const bad of [
        'limit=0',
        'limit=201',
        'limit=x',
        'slaBreachHours=0',
        'slaBreachHours=721',
        'response=LATE',
        'status=NEW',
        'priority=HIGHEST',
        'audience=ALL',
        'assigned=maybe',
        'assigneeId=1',
        'unknown=1',
      ])
        expectProblem(await h.list(agent, bad), 400, 'validation_failed');
      const res = await h.list(agent, `q=${word}`);
      expect(res.json.items).to.have.length(tickets.length);
      expect((await h.list(agent, `q=${word}&limit=200&slaBreachHours=720`)).status).to.equal(200);
    });
  });

  describe("a merchant's view", () => {
    it("lists the tenant's tickets only, paged the same way", async () => {
      const mine = await readAll('sort=ticketNumber-asc', 2, a);
      expect(new Set(ids(mine))).to.deep.equal(new Set(tickets.filter((t) => t.tenantId === a.owner.tenantId).map((t) => t.id)));
      expect(mine.every((t) => t.tenantId === a.owner.tenantId)).to.equal(true);
      const theirs = await readAll('sort=messages-desc', 2, b);
      expect(theirs.every((t) => t.tenantId === b.owner.tenantId)).to.equal(true);
      expect(theirs).to.have.length(tickets.filter((t) => t.tenantId === b.owner.tenantId).length);
    });
  });
});
