/**
 * The console's sign-out and the pages the platform sends people to, in a real browser (Debian's
 * chromium through playwright-core, as web.test.ts): signing out ends the session on the server; the
 * device flow's verification address asks to sign in first, comes back with the code filled in and
 * approves it, or denies a typed code; the e-mailed verification link confirms the address; the
 * password reset link shows the API's rules, the broken ones, and sets the new password; a form on
 * another origin posting to the start page or the console is refused. The HTTP-level refusals are in
 * test/api/web-security.test.ts.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { call, type TestServer } from '../helpers/harness';
import { GOOD_PASSWORD, bearer, emailedToken, expectProblem, signUp, startIsolatedServer, uniqueEmail } from '../helpers/accounts';
import { PROJECT_ROOT } from '../../lib/config';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('web: console sign-out, device, e-mail verification and password reset pages in a browser', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const tenants: string[] = [];

  /** The address of a link the API built on PUBLIC_BASE_URL, on this test's server. */
  const here = (link: string): string => {
    const url = new URL(link);
    return `${server.baseUrl}${url.pathname}${url.search}`;
  };
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  async function newAccount() {
    const owner = await signUp(server);
    tenants.push(owner.tenantId);
    return owner;
  }

  async function consoleSignIn(email: string, password = GOOD_PASSWORD): Promise<void> {
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Sign in' }).click()]);
  }

  async function consoleCookies(): Promise<Record<string, string>> {
    return Object.fromEntries((await context.cookies()).filter((c) => c.name.startsWith('console_')).map((c) => [c.name, c.value]));
  }

  before(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(
        `No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; scripts/test does it as root) or set CHROMIUM_PATH.`,
      );
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    // A rate limiter of the file's own: its sign-ins and the sandbox form count per client.
    server = await startIsolatedServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  });

  afterEach(async () => {
    await context?.close();
  });

  after(async () => {
    await browser?.close();
    if (!server) return;
    await server.runtime.dataSource.query(
      "UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = ANY($1::uuid[]) AND status <> 'done'",
      [tenants],
    );
    await server.close();
  });

  it('signs out of the console: the session ends on the server, its tokens stop working', async () => {
    const owner = await newAccount();
    await page.goto(`${server.baseUrl}/console`);
    await consoleSignIn(owner.email);
    await page.getByRole('heading', { name: 'Pick a store' }).waitFor();
    const cookies = await consoleCookies();
    expect(cookies.console_at, 'access cookie').to.be.a('string');
    expect(cookies.console_rt, 'refresh cookie').to.be.a('string');
    expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(cookies.console_at!) })).status).to.equal(200);

    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/console/logout')),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(cookies.console_at!) }), 401, 'session_revoked');
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: cookies.console_rt } }),
      401,
      'invalid_refresh_token',
    );
    await page.getByText('Signed out.').waitFor();
    expect(await consoleCookies()).to.deep.equal({});
  });

  it('approves a command line sign-in from the verification address, signing in first', async () => {
    const owner = await newAccount();
    const device = await call(server, 'POST', '/api/v1/auth/cli/device', { body: { clientName: 'svc on a laptop' } });
    expect(device.status, device.text).to.equal(200);
    await page.goto(here(device.json.verificationUriComplete));
    await page.getByText('Sign in to approve or deny the command line sign-in.').waitFor();
    await consoleSignIn(owner.email);
    await page.getByRole('heading', { name: 'Command line sign-in' }).waitFor();
    expect(page.url()).to.include('/console/device?user_code=');
    expect(await page.getByLabel('Code shown by the tool').inputValue()).to.equal(device.json.userCode);
    await shot('console-device');
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Approve' }).click()]);
    await page.getByText('Approved.').waitFor();

    const token = await call(server, 'POST', '/api/v1/auth/cli/token', { body: { deviceCode: device.json.deviceCode } });
    expect(token.status, token.text).to.equal(200);
    expect(token.json.user.email).to.equal(owner.email);
  });

  it('denies a typed code at /device; an unknown code is explained', async () => {
    const owner = await newAccount();
    const device = await call(server, 'POST', '/api/v1/auth/cli/device', { body: { clientName: 'svc' } });
    await page.goto(`${server.baseUrl}/device`);
    await consoleSignIn(owner.email);
    const input = page.getByLabel('Code shown by the tool');
    expect(await input.inputValue()).to.equal('');
    await input.fill('BCDF-GHJK');
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Approve' }).click()]);
    await page.getByText('No pending device request has this code').waitFor();

    await page.getByLabel('Code shown by the tool').fill(device.json.userCode.toLowerCase());
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Deny' }).click()]);
    await page.getByText('Denied.').waitFor();
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/cli/token', { body: { deviceCode: device.json.deviceCode } }),
      400,
      'access_denied',
    );
  });

  it('confirms an e-mail address from the e-mailed link', async () => {
    const owner = await newAccount();
    const token = await emailedToken(server, owner.email, 'verify_email');
    await page.goto(`${server.baseUrl}/verify-email?token=${encodeURIComponent(token)}`);
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Confirm my e-mail address' }).click()]);
    await page.getByText(`${owner.email} is confirmed`).waitFor();
    const account = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(owner.accessToken) });
    expect(account.json.emailVerified).to.equal(true);
  });

  it('resets a password from the e-mailed link: differing and weak passwords are explained, then a good one works', async () => {
    const owner = await newAccount();
    expect((await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: owner.email } })).status).to.equal(202);
    const token = await emailedToken(server, owner.email, 'reset_password');
    await page.goto(`${server.baseUrl}/reset-password?token=${encodeURIComponent(token)}`);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByText('an uppercase letter').waitFor();

    const send = async (password: string, repeat = password) => {
      await page.getByLabel('New password', { exact: true }).fill(password);
      await page.getByLabel('New password again').fill(repeat);
      await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Set the new password' }).click()]);
    };
    await send('New-Password-7731', 'New-Password-7732');
    await page.getByText('The two passwords differ').waitFor();
    // Long enough for the browser's own check, but too common and without a digit for the API's rules.
    await send('Password-Password');
    await page.getByText('The password breaks these rules:').waitFor();
    expect(await page.locator('#broken-rules li').count()).to.be.greaterThan(0);
    await shot('console-reset-password');
    await send('New-Password-7731');
    await page.getByText('Your password is changed').waitFor();

    await Promise.all([page.waitForURL(/\/console$/), page.getByRole('link', { name: 'Sign in' }).click()]);
    await consoleSignIn(owner.email, 'New-Password-7731');
    await page.getByRole('heading', { name: 'Pick a store' }).waitFor();
  });

  it('refuses forms posted from a page of another origin, and nothing changes', async () => {
    const owner = await newAccount();
    await page.goto(`${server.baseUrl}/console`);
    await consoleSignIn(owner.email);
    await page.getByRole('heading', { name: 'Pick a store' }).waitFor();
    const cookies = await consoleCookies();

    // Another origin on the same machine (same site, so the console's SameSite cookies are sent).
    const email = uniqueEmail('cross');
    const attacker = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(
        `<form method="post" action="${server.baseUrl}/"><input name="email" value="${email}"><button id="sandbox">go</button></form>` +
          `<form method="post" action="${server.baseUrl}/console/logout"><button id="logout">go</button></form>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
    try {
      const evil = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
      for (const button of ['#sandbox', '#logout']) {
        await page.goto(evil);
        const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click(button)]);
        expect(response.status(), button).to.equal(403);
        await page.getByText('sent from another site and was refused').waitFor();
      }
    } finally {
      await new Promise<void>((resolve) => attacker.close(() => resolve()));
    }
    expect(await server.runtime.dataSource.query('SELECT 1 FROM sandboxes WHERE email = $1', [email])).to.have.length(0);
    expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(cookies.console_at!) })).status).to.equal(200);
  });
});
