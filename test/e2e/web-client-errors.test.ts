/**
 * The storefront and the console report their own JavaScript errors (web/theme/assets/error-reporter.js;
 * docs/client-errors.md): in a real browser (Debian's chromium through playwright-core, see web.test.ts)
 * a storefront page throws, rejects a promise, reports by hand and makes a failing API call, and the
 * events arrive through the public intake with the store, the app and the page; a console page
 * reports as the console.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { call, startTestServer, type TestServer } from '../helpers/harness';
import { platformStaff, type Staff } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Letters only, so the messages stay this run's own after normalising. */
const RUN = Array.from({ length: 12 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

describe('web: the storefront and console report their errors', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let staff: Staff;
  let m: Merchant;

  before(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(`No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`);
    server = await startTestServer();
    staff = await platformStaff(server, 'support_agent');
    m = await merchant(server);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
  });

  after(async () => {
    await browser?.close();
    if (!server) return;
    await server.runtime.dataSource.query("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND status <> 'done'", [
      m.owner.tenantId,
    ]);
    await server.close();
  });

  /** The reported event whose message contains `text`, once it is there. */
  const reportedEvent = (text: string) =>
    eventually(
      async () => {
        const res = await call(server, 'GET', `/api/v1/client-errors?hours=1&search=${encodeURIComponent(text)}`, {
          headers: staff.headers,
        });
        expect(res.status, res.text).to.equal(200);
        return res.json.items[0] as Record<string, any> | undefined;
      },
      `the event "${text}"`,
      15_000,
    );

  it('reports a thrown error, a rejected promise, a manual report and a failed API call of a storefront page', async () => {
    await page.goto(`${server.baseUrl}/shop/${m.storeId}`);
    await page.waitForFunction(() => typeof (globalThis as unknown as { reportClientError?: unknown }).reportClientError === 'function');
    await page.evaluate((run) => {
      setTimeout(() => {
        throw new Error(`boom ${run}`);
      });
      void Promise.reject(new TypeError(`rejected ${run}`));
      (globalThis as unknown as { reportClientError: (m: string, level?: string) => void }).reportClientError(`by hand ${run}`, 'warning');
      void fetch(`/api/v1/catalog/public/stores/${run}/nothing`).catch(() => undefined);
    }, RUN);

    const thrown = await reportedEvent(`boom ${RUN}`);
    expect(thrown).to.include({ app: 'storefront', kind: 'window', level: 'error', storeId: m.storeId, tenantId: m.owner.tenantId });
    expect(thrown.message).to.equal(`boom ${RUN}`);
    expect(thrown.url).to.equal(`${server.baseUrl}/shop/${m.storeId}`);
    expect(thrown.stack).to.contain(`boom ${RUN}`);
    expect(thrown.userAgent).to.match(/Chrome/);
    expect(await reportedEvent(`rejected ${RUN}`)).to.include({ kind: 'unhandledrejection', message: `TypeError: rejected ${RUN}` });
    expect(await reportedEvent(`by hand ${RUN}`)).to.include({ kind: 'manual', level: 'warning' });
    expect(await reportedEvent(`/stores/${RUN}/nothing`)).to.include({
      kind: 'api',
      level: 'warning',
      message: `GET /api/v1/catalog/public/stores/${RUN}/nothing answered 404`,
    });

    // The thrown error is a group of its own, open, with this event as its sample.
    const grouped = await call(server, 'GET', `/api/v1/client-errors/grouped?app=storefront&kind=window&limit=100`, {
      headers: staff.headers,
    });
    const group = grouped.json.items.find((g: any) => g.fingerprint === thrown.fingerprint);
    expect(group).to.include({ status: 'open', kind: 'window', title: `boom ${RUN}` });
  });

  it('reports errors of a console page as the console', async () => {
    await page.goto(`${server.baseUrl}/console`);
    await page.waitForFunction(() => typeof (globalThis as unknown as { reportClientError?: unknown }).reportClientError === 'function');
    await page.evaluate((run) => {
      setTimeout(() => {
        throw new Error(`console boom ${run}`);
      });
    }, RUN);
    expect(await reportedEvent(`console boom ${RUN}`)).to.include({ app: 'console', kind: 'window', storeId: null });
  });
});
