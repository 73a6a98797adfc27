/**
 * Saved reports over HTTP: creating each kind with its parameters validated (defaults filled in), the
 * schedule rules, the list of a store, deleting, the per-store limit, audit entries, tenant isolation
 * and store API keys; and the scheduler on a clock the test drives: a due report emits one
 * saved_report.due webhook event with the period it covers and moves to its next time.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { systemContext } from '../../storage/request-context';
import { savedReportsRoutes } from '../../api/saved-reports/saved-reports.routes';
import { SavedReportListResponse, SavedReportResponse } from '../../api/saved-reports/saved-reports.responses';
import { runSavedReportPass } from '../../api/saved-reports/saved-reports.scheduler';

const API = '/api/v1';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('Saved reports', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;

  before(async () => {
    m = suite.addMerchant(await merchant(server));
    await db(`UPDATE stores SET timezone = 'Europe/Istanbul' WHERE id = $1`, [m.storeId]);
  });

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  // The scheduler pass reads every tenant's reports: scheduled reports of this file's tenants are
  // unscheduled once their test is done, so a later pass (or run) emits nothing for them.
  const unschedule = (tenantId: string) =>
    db(`UPDATE saved_reports SET schedule = 'NONE', hour = NULL, time_zone = NULL, next_due_at = NULL WHERE tenant_id = $1`, [tenantId]);
  const create = (body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'POST', `${API}/saved-reports`, { headers, body: { storeId: m.storeId, name: 'Weekly sales', ...body } });
  const list = (storeId: string, headers = m.headers) => call(server, 'GET', `${API}/saved-reports?storeId=${storeId}`, { headers });
  const remove = (id: string, headers = m.headers) => call(server, 'DELETE', `${API}/saved-reports/${id}`, { headers });

  function expectReport(res: TestResponse, status = 201): Record<string, any> {
    expect(res.status, res.text).to.equal(status);
    expect(SavedReportResponse.schema.validate(res.json).error?.message).to.equal(undefined);
    return res.json;
  }

  it('creates each kind of report with its parameters, filling in the defaults', async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['PROFIT_LOSS', { from: '2026-01-01', to: '2026-01-31' }, { from: '2026-01-01', to: '2026-01-31' }],
      ['PROFIT_LOSS', {}, {}],
      ['KPIS', {}, { days: 30 }],
      ['TOP_PRODUCTS', { days: 7 }, { days: 7, limit: 50 }],
      ['REVENUE_TIMESERIES', { days: 365 }, { days: 365 }],
      ['COHORTS', {}, { monthsBack: 12 }],
      ['FUNNEL', { days: 1 }, { days: 1 }],
      ['CUSTOMER_LTV', { limit: 100 }, { limit: 100 }],
    ];
    for (const [report, parameters, stored] of cases) {
      const body = expectReport(await create({ report, parameters, schedule: 'NONE' }));
      expect(body, report).to.deep.include({
        storeId: m.storeId,
        report,
        parameters: stored,
        schedule: 'NONE',
        hour: null,
        timeZone: null,
        nextDueAt: null,
      });
    }
    // parameters left out: the report's defaults.
    expect(expectReport(await create({ report: 'KPIS', schedule: 'NONE' })).parameters).to.deep.equal({ days: 30 });
  });

  it('refuses parameters out of bounds, of another report, and bad schedules', async () => {
    for (const body of [
      { report: 'KPIS', parameters: { days: 0 }, schedule: 'NONE' },
      { report: 'KPIS', parameters: { days: 366 }, schedule: 'NONE' },
      { report: 'KPIS', parameters: { limit: 5 }, schedule: 'NONE' },
      { report: 'TOP_PRODUCTS', parameters: { limit: 101 }, schedule: 'NONE' },
      { report: 'COHORTS', parameters: { monthsBack: 37 }, schedule: 'NONE' },
      { report: 'CUSTOMER_LTV', parameters: { days: 30 }, schedule: 'NONE' },
      { report: 'PROFIT_LOSS', parameters: { from: '2026-01-01' }, schedule: 'NONE' },
      { report: 'PROFIT_LOSS', parameters: { from: '2026-02-30', to: '2026-03-01' }, schedule: 'NONE' },
      { report: 'SALES', schedule: 'NONE' },
      { report: 'KPIS', schedule: 'HOURLY', hour: 3 },
      { report: 'KPIS', schedule: 'DAILY', hour: 24 },
      { report: 'KPIS', schedule: 'DAILY', hour: 3, timeZone: 'Mars/Olympus' },
      { report: 'KPIS', schedule: 'NONE', name: '' },
      { report: 'KPIS', schedule: 'NONE', extra: 1 },
    ])
      expectProblem(await create(body), 400, 'validation_failed');
    expectProblem(await create({ report: 'KPIS', schedule: 'DAILY' }), 400, 'saved_report_schedule_invalid');
    expectProblem(await create({ report: 'KPIS', schedule: 'NONE', hour: 3 }), 400, 'saved_report_schedule_invalid');
    expectProblem(await create({ report: 'KPIS', schedule: 'NONE', timeZone: 'UTC' }), 400, 'saved_report_schedule_invalid');
    expectProblem(
      await create({ report: 'PROFIT_LOSS', parameters: { from: '2026-02-01', to: '2026-01-01' }, schedule: 'NONE' }),
      400,
      'saved_report_period_invalid',
    );
  });

  it('schedules DAILY, WEEKLY and MONTHLY reports at the hour of the time zone (the store’s by default)', async () => {
    const before = Date.now();
    const daily = expectReport(await create({ report: 'KPIS', schedule: 'DAILY', hour: 6 }));
    expect(daily.timeZone).to.equal('Europe/Istanbul');
    // 06:00 in Istanbul is 03:00 UTC; the next one after now.
    const next = new Date(daily.nextDueAt).getTime();
    expect(new Date(next).toISOString().slice(11, 19)).to.equal('03:00:00');
    expect(next).to.be.greaterThan(before);
    expect(next - before).to.be.at.most(DAY);
    const weekly = expectReport(await create({ report: 'FUNNEL', schedule: 'WEEKLY', hour: 0, timeZone: 'UTC' }));
    const w = new Date(weekly.nextDueAt);
    expect([w.getUTCDay(), w.getUTCHours(), w.getUTCMinutes()]).to.deep.equal([1, 0, 0]);
    expect(w.getTime() - before).to.be.within(0, 7 * DAY);
    const monthly = expectReport(await create({ report: 'COHORTS', schedule: 'MONTHLY', hour: 23, timeZone: 'America/New_York' }));
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'America/New_York',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(monthly.nextDueAt));
    expect(local).to.equal('01, 23');
  });

  it('lists the reports of a store oldest first; deletes one (204) with audit entries; 404 for what is not there', async () => {
    const other = suite.addMerchant(await merchant(server));
    expectReport(await create({ name: 'A', report: 'KPIS', schedule: 'NONE' }));
    const mine = await list(m.storeId);
    expect(mine.status, mine.text).to.equal(200);
    expect(SavedReportListResponse.schema.validate(mine.json).error?.message).to.equal(undefined);
    const ids = (await db(`SELECT id FROM saved_reports WHERE store_id = $1 ORDER BY created_at, id`, [m.storeId])).map((r) => r.id);
    expect(mine.json.items.map((r: { id: string }) => r.id)).to.deep.equal(ids);
    // The other tenant sees none of them, cannot list the store, cannot delete one.
    const theirs = expectReport(
      await call(server, 'POST', `${API}/saved-reports`, {
        headers: other.headers,
        body: { storeId: other.storeId, name: 'Theirs', report: 'KPIS', schedule: 'NONE' },
      }),
    );
    expect((await list(other.storeId, other.headers)).json.items.map((r: { id: string }) => r.id)).to.deep.equal([theirs.id]);
    expectProblem(await list(m.storeId, other.headers), 404, 'store_not_found');
    expectProblem(await remove(ids[0], other.headers), 404, 'saved_report_not_found');
    expectProblem(await create({ report: 'KPIS', schedule: 'NONE' }, other.headers), 404, 'store_not_found');
    // Delete.
    const res = await remove(ids[0]);
    expect(res.status, res.text).to.equal(204);
    expectProblem(await remove(ids[0]), 404, 'saved_report_not_found');
    expectProblem(await remove(uuidv7()), 404, 'saved_report_not_found');
    expect((await list(m.storeId)).json.items.map((r: { id: string }) => r.id)).to.not.include(ids[0]);
    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_type === 'saved_report');
    expect(audit.filter((r) => r.action === 'saved_report.create').map((r) => r.resource_id)).to.include.members(ids);
    const deleted = audit.find((r) => r.action === 'saved_report.delete')!;
    expect(deleted.resource_id).to.equal(ids[0]);
    expect(deleted.before).to.include({ id: ids[0], storeId: m.storeId });
  });

  it('binds a store API key to its store, answers 401 anonymous, and caps a store at 100 reports', async () => {
    const n = suite.addMerchant(await merchant(server));
    const key = await apiKey(server, n, ['saved-reports:read', 'saved-reports:write']);
    const made = expectReport(
      await call(server, 'POST', `${API}/saved-reports`, {
        headers: key,
        body: { storeId: n.storeId, name: 'By key', report: 'FUNNEL', schedule: 'NONE' },
      }),
    );
    const second = (
      await call(server, 'POST', `${API}/organization/stores`, {
        headers: n.headers,
        body: { name: 'Second', slug: `second-${uuidv7().slice(-12)}` },
      })
    ).json.id as string;
    const elsewhere = expectReport(
      await call(server, 'POST', `${API}/saved-reports`, {
        headers: n.headers,
        body: { storeId: second, name: 'Other store', report: 'KPIS', schedule: 'NONE' },
      }),
    );
    expectProblem(await list(second, key), 404, 'store_not_found');
    expectProblem(await remove(elsewhere.id, key), 404, 'saved_report_not_found');
    expect((await remove(made.id, key)).status).to.equal(204);
    expectProblem(await call(server, 'GET', `${API}/saved-reports?storeId=${n.storeId}`, {}), 401, 'unauthorized');
    // The limit: 100 per store.
    for (let i = 0; i < 100; i++)
      await db(`INSERT INTO saved_reports (id, tenant_id, store_id, name, report, schedule) VALUES ($1, $2, $3, 'r', 'KPIS', 'NONE')`, [
        uuidv7(),
        n.owner.tenantId,
        n.storeId,
      ]);
    expectProblem(
      await call(server, 'POST', `${API}/saved-reports`, {
        headers: n.headers,
        body: { storeId: n.storeId, name: 'One too many', report: 'KPIS', schedule: 'NONE' },
      }),
      409,
      'saved_report_limit_reached',
    );
    expect(savedReportsRoutes.every((r) => r.handler && r.auth === 'merchant')).to.equal(true);
  });

  it('the scheduler emits saved_report.due once when a report comes due, with the period it covers, and moves it on', async () => {
    await unschedule(m.owner.tenantId);
    const s = suite.addMerchant(await merchant(server));
    await db(`UPDATE stores SET timezone = 'Europe/Istanbul' WHERE id = $1`, [s.storeId]);
    const post = (body: Record<string, unknown>) =>
      call(server, 'POST', `${API}/saved-reports`, { headers: s.headers, body: { storeId: s.storeId, name: 'Scheduled', ...body } });
    const daily = expectReport(await post({ report: 'TOP_PRODUCTS', parameters: { days: 1 }, schedule: 'DAILY', hour: 6 }));
    const monthly = expectReport(await post({ report: 'PROFIT_LOSS', schedule: 'MONTHLY', hour: 0, timeZone: 'UTC' }));
    expectReport(await post({ report: 'KPIS', schedule: 'NONE' }));
    const ctx = () => systemContext(server.runtime.dataSource, uuidv7(), undefined, 'test', server.runtime.services);
    const events = async () =>
      (
        await db(`SELECT payload FROM outbox WHERE tenant_id = $1 AND topic = 'saved_report.due' AND queue = 'webhooks' ORDER BY id`, [
          s.owner.tenantId,
        ])
      ).map((r) => r.payload);

    // Before it is due: nothing.
    const dailyDue = new Date(daily.nextDueAt);
    await runSavedReportPass(ctx(), new Date(dailyDue.getTime() - 1000));
    expect(await events()).to.have.length(0);

    // Due: one event for the daily report (the monthly one is not due yet).
    const at = new Date(dailyDue.getTime() + 60_000);
    await runSavedReportPass(ctx(), at);
    const [first, ...rest] = await events();
    expect(rest).to.have.length(0);
    const dueDay = new Date(dailyDue.getTime() + 3 * HOUR).toISOString().slice(0, 10);
    const dayBefore = new Date(Date.parse(`${dueDay}T00:00:00Z`) - DAY).toISOString().slice(0, 10);
    expect(first.topic).to.equal('saved_report.due');
    expect(first.data).to.deep.equal({
      reportId: daily.id,
      storeId: s.storeId,
      name: 'Scheduled',
      report: 'TOP_PRODUCTS',
      parameters: { days: 1, limit: 50 },
      schedule: 'DAILY',
      period: { from: dayBefore, to: dayBefore, timeZone: 'Europe/Istanbul' },
      dueAt: dailyDue.toISOString(),
    });
    const [row] = await db(`SELECT next_due_at, last_due_at FROM saved_reports WHERE id = $1`, [daily.id]);
    expect(row.last_due_at.toISOString()).to.equal(dailyDue.toISOString());
    expect(row.next_due_at.toISOString()).to.equal(new Date(dailyDue.getTime() + DAY).toISOString());

    // Running again at the same time emits nothing more.
    await runSavedReportPass(ctx(), at);
    expect(await events()).to.have.length(1);

    // The monthly one: due on the 1st at 00:00 UTC, covering the month before.
    const monthlyDue = new Date(monthly.nextDueAt);
    expect(monthlyDue.toISOString()).to.match(/-01T00:00:00.000Z$/);
    await runSavedReportPass(ctx(), new Date(monthlyDue.getTime() + 1000));
    const monthlyEvent = (await events()).find((e) => e.data.reportId === monthly.id);
    const previous = new Date(Date.UTC(monthlyDue.getUTCFullYear(), monthlyDue.getUTCMonth() - 1, 1));
    const lastDay = new Date(monthlyDue.getTime() - DAY).toISOString().slice(0, 10);
    expect(monthlyEvent.data.period).to.deep.equal({ from: previous.toISOString().slice(0, 10), to: lastDay, timeZone: 'UTC' });
    const audit = (await auditRows(server, s.owner.tenantId)).filter((r) => r.action === 'saved_report.due');
    expect(audit.map((r) => r.resource_id)).to.include.members([daily.id, monthly.id]);
    expect(audit.find((r) => r.resource_id === daily.id)!.actor_type).to.equal('system');
    await unschedule(s.owner.tenantId);
  });
});
