/**
 * The web pages' defences, over HTTP (the browser side is test/e2e/web-account-pages.test.ts):
 * - signing out of the console revokes the session on the server: its access token answers 401 and
 *   its refresh token refreshes no more;
 * - form posts from another origin (`Origin` of another site, `Origin: null`, a foreign `Referer`
 *   without `Origin`, `Sec-Fetch-Site: cross-site`) are refused with a 403 page before anything
 *   changes, on the start page's sandbox form and on every console form; posts from this server's
 *   own address or its configured public address go through;
 * - the Content-Security-Policy (and Referrer-Policy) of the start page, the console, the account
 *   pages and the storefront's 404 pages, with no inline script;
 * - the addresses the platform sends people to (`/device`, `/verify-email`, `/reset-password`) lead
 *   to working pages that call the API, and signing in comes back to the device page, never to
 *   another site.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import {
  GOOD_PASSWORD,
  bearer,
  emailedToken,
  expectProblem,
  lastMessage,
  signUp,
  startIsolatedServer,
  uniqueEmail,
} from '../helpers/accounts';
import { apiKey, merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { FORM, web, type PageResponse } from '../helpers/web-page';

const EVIL = 'http://evil.example';

/** Signs in to the console with e-mail and password (from the server's own origin); answers its two cookies. */
async function consoleSignIn(server: TestServer, email: string, password = GOOD_PASSWORD): Promise<Record<string, string>> {
  const res = await web(server, 'POST', '/console/login', { form: { email, password }, headers: { Origin: server.baseUrl } });
  expect(res.status, res.text.slice(0, 300)).to.equal(302);
  expect(res.cookies.console_at, 'access cookie').to.be.a('string').and.not.equal('');
  expect(res.cookies.console_rt, 'refresh cookie').to.be.a('string').and.not.equal('');
  return { console_at: res.cookies.console_at!, console_rt: res.cookies.console_rt! };
}

function expectRefusedPage(res: PageResponse, label: string): void {
  expect(res.status, `${label}: ${res.text.slice(0, 300)}`).to.equal(403);
  expect(res.headers.get('content-type'), label).to.match(/^text\/html/);
  expect(res.text, label).to.include('sent from another site and was refused');
}

/** The cross-site ways a browser may send a post to `server`, each of which must be refused. */
function foreign(server: TestServer): Array<[label: string, headers: Record<string, string>]> {
  const own = new URL(server.baseUrl);
  return [
    ['Origin of another site', { Origin: EVIL }],
    ['Origin: null', { Origin: 'null' }],
    ['a Referer of another site and no Origin', { Referer: `${EVIL}/page` }],
    ['an unreadable Origin', { Origin: 'not a url' }],
    ['Sec-Fetch-Site: same-site even with our own Origin', { 'Sec-Fetch-Site': 'same-site', Origin: server.baseUrl }],
    ['the same host on another port', { Origin: `http://${own.hostname}:1` }],
    ['the same host and port over another scheme', { Origin: `https://${own.host}` }],
    ['a Host of our own but another Origin', { Origin: `http://other.${own.hostname}.example` }],
  ];
}

describe('web pages: sign-out, cross-site posts, CSP, device and e-mail link pages', () => {
  let server: TestServer;
  // A rate limiter of the file's own: sign-ins, sandbox posts and forgot-password count per client.
  apiSuite((started) => (server = started), { start: () => startIsolatedServer() });

  describe('console sign-out', () => {
    it('revokes the session: the old access token answers 401 and the old refresh token refreshes no more', async () => {
      const owner = await signUp(server);
      const cookies = await consoleSignIn(server, owner.email);
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(cookies.console_at!) })).status).to.equal(200);

      const out = await web(server, 'POST', '/console/logout', { cookies, headers: { Origin: server.baseUrl } });
      expect(out.status).to.equal(302);
      // The session is revoked, and the API reads it on every request: the access token stops at once.
      expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(cookies.console_at!) }), 401, 'session_revoked');
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: cookies.console_rt } }),
        401,
        'invalid_refresh_token',
      );
      expect(out.location).to.equal('/console?flash=Signed+out.');
      expect(out.cookies.console_at ?? '', 'access cookie cleared').to.equal('');
      expect(out.cookies.console_rt ?? '', 'refresh cookie cleared').to.equal('');
      // The sign-up's own session is another session and stays signed in.
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(owner.accessToken) })).status).to.equal(200);
    });

    it('a sign-out posted from another site is refused and the session goes on', async () => {
      const owner = await signUp(server);
      const cookies = await consoleSignIn(server, owner.email);
      expectRefusedPage(await web(server, 'POST', '/console/logout', { cookies, headers: { Origin: EVIL } }), 'logout');
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(cookies.console_at!) })).status).to.equal(200);
    });

    it('forgets a pasted token (nothing to revoke) and signs out', async () => {
      const out = await web(server, 'POST', '/console/logout', {
        cookies: { console_at: 'sk_pasted_token' },
        headers: { Origin: server.baseUrl },
      });
      expect(out.status).to.equal(302);
      expect(out.location).to.equal('/console?flash=Signed+out.');
      expect(out.cookies.console_at ?? '').to.equal('');
    });
  });

  describe('cross-site form posts', () => {
    it('POST / (sandbox creation) from another site: 403 page and no sandbox', async () => {
      for (const [label, headers] of foreign(server)) {
        const email = uniqueEmail('csrf');
        expectRefusedPage(await web(server, 'POST', '/', { form: { email }, headers }), `POST / with ${label}`);
        const rows = await server.runtime.dataSource.query('SELECT 1 FROM sandboxes WHERE email = $1', [email]);
        expect(rows, label).to.have.length(0);
      }
    });

    it('POST / from this server’s address, from the configured public address, or with neither header reaches the API', async () => {
      const publicOrigin = new URL(server.runtime.config.publicBaseUrl).origin;
      const accepted: Array<Record<string, string>> = [
        { Origin: server.baseUrl },
        { Origin: publicOrigin },
        { Referer: `${server.baseUrl}/` },
        {},
      ];
      for (const headers of accepted) {
        // An invalid address: the sandbox operation answers 400, so nothing is created either way.
        const res = await web(server, 'POST', '/', { form: { email: 'not-an-address' }, headers });
        expect(res.status, `${JSON.stringify(headers)}: ${res.text.slice(0, 300)}`).to.equal(400);
        expect(res.text).not.to.include('sent from another site');
      }
    });

    it('every console form from another site: 403 page, before the body is read, and nothing changes', async () => {
      const m = await merchant(server);
      const cookies = await consoleSignIn(server, m.owner.email);
      const id = uuidv7();
      const posts: Array<[path: string, form: Record<string, string>]> = [
        ['/console/login', { email: m.owner.email, password: GOOD_PASSWORD }],
        ['/console/logout', {}],
        ['/console/pick', { storeId: m.storeId }],
        [`/console/stores/${m.storeId}/zero-results/synonym`, { query: 'sneakers', synonyms: 'shoes' }],
        [`/console/stores/${m.storeId}/synonyms`, { type: 'ONE_WAY', input: 'tee', synonyms: 't-shirt' }],
        [`/console/stores/${m.storeId}/synonyms/${id}`, { type: 'ONE_WAY', input: 'tee', synonyms: 'shirt' }],
        [`/console/stores/${m.storeId}/synonyms/${id}/delete`, {}],
        [`/console/stores/${m.storeId}/visual/reindex`, { force: 'true' }],
        [`/console/stores/${m.storeId}/visual/settings`, { enabled: 'true' }],
        [`/console/stores/${m.storeId}/bulk-edits/${id}/revert`, {}],
        ['/console/device', { user_code: 'BCDF-GHJK', decision: 'approve' }],
        ['/console/verify-email', { token: 'x'.repeat(43) }],
        ['/console/reset-password', { token: 'x'.repeat(43), password: 'Another-Good-Pass-77', password_repeat: 'Another-Good-Pass-77' }],
      ];
      for (const [path, form] of posts) {
        for (const [label, headers] of foreign(server)) {
          const res = await web(server, 'POST', path, { form, cookies, headers });
          expectRefusedPage(res, `${path} with ${label}`);
          expect(res.cookies, `${path} with ${label}: no cookie set`).to.deep.equal({});
        }
      }
      // Refused before reading: a huge body is not read (no 413), the answer is still the 403 page.
      const huge = await fetch(`${server.baseUrl}/console/login`, {
        method: 'POST',
        headers: { 'Content-Type': FORM, Origin: EVIL },
        body: `pad=${'x'.repeat(200 * 1024)}`,
        redirect: 'manual',
      });
      expect(huge.status).to.equal(403);

      // Nothing changed: no synonym, visual search still off, and the console session still works.
      const synonyms = await call(server, 'GET', `/api/v1/search-synonyms?storeId=${m.storeId}`, { headers: m.headers });
      expect(synonyms.json.items, synonyms.text).to.deep.equal([]);
      const visual = await call(server, 'GET', `/api/v1/visual-search/stores/${m.storeId}/index`, { headers: m.headers });
      expect(visual.json.enabled, visual.text).to.equal(false);
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(cookies.console_at!) })).status).to.equal(200);

      // The same post from the console itself goes through.
      const ok = await web(server, 'POST', `/console/stores/${m.storeId}/synonyms`, {
        form: { type: 'ONE_WAY', input: 'tee', synonyms: 't-shirt' },
        cookies,
        headers: { Origin: server.baseUrl, 'Sec-Fetch-Site': 'same-origin' },
      });
      expect(ok.status).to.equal(302);
      expect(ok.location).to.match(/flash=Synonym\+rule\+added/);
    });
  });

  describe('Content-Security-Policy', () => {
    function expectStrictCsp(res: { status: number; headers: Headers; text: string }, label: string): void {
      const csp = res.headers.get('content-security-policy');
      expect(csp, `${label}: CSP`).to.be.a('string');
      expect(csp, label).to.match(/default-src 'self'/);
      expect(csp, label).to.match(/script-src 'self'(;|$)/);
      expect(csp, label).to.match(/frame-ancestors 'none'/);
      expect(csp, label).to.match(/form-action 'self'/);
      expect(csp, label).not.to.include('unsafe-inline');
      // No inline script or handler a hash or nonce would have to allow.
      expect(res.text, `${label}: inline script`).not.to.match(/<script(?![^>]*\ssrc=)[^>]*>/i);
      expect(res.text, `${label}: inline handler`).not.to.match(/\son[a-z]+\s*=/i);
    }

    it('the start page, the console and the account pages send it, with Referrer-Policy same-origin', async () => {
      const pages: Array<[path: string, status: number]> = [
        ['/', 200],
        ['/console', 200],
        ['/console/device?user_code=BCDF-GHJK', 200],
        ['/console/verify-email?token=abc', 200],
        ['/console/reset-password?token=abc', 200],
      ];
      for (const [path, status] of pages) {
        const res = await web(server, 'GET', path);
        expect(res.status, path).to.equal(status);
        expectStrictCsp(res, path);
        expect(res.headers.get('referrer-policy'), path).to.equal('same-origin');
      }
      const refused = await web(server, 'POST', '/', { form: { email: 'a@example.test' }, headers: { Origin: EVIL } });
      expectStrictCsp(refused, 'refused POST /');
    });

    it('the storefront’s 404 pages send it: an unknown store, an unknown page of a store, a malformed id', async () => {
      const m = await merchant(server);
      for (const path of [
        `/shop/${uuidv7()}`,
        `/shop/${m.storeId}/no/such/page`,
        `/shop/${m.storeId}/products/no-such-product`,
        '/shop/not-a-uuid',
      ]) {
        const res = await web(server, 'GET', path);
        expect(res.status, path).to.equal(404);
        expect(res.headers.get('content-type'), path).to.match(/^text\/html/);
        expectStrictCsp(res, path);
      }
    });
  });

  describe('the device page', () => {
    it('the verification URI leads to the console page; signing in comes back to it with the code', async () => {
      const device = await call(server, 'POST', '/api/v1/auth/cli/device', { body: { clientName: 'svc on a laptop' } });
      const complete = new URL(device.json.verificationUriComplete);
      expect(new URL(device.json.verificationUri).pathname).to.equal('/device');
      const first = await web(server, 'GET', `${complete.pathname}${complete.search}`);
      expect(first.status).to.equal(302);
      expect(first.location).to.equal(`/console/device${complete.search}`);
      expect((await web(server, 'GET', '/device?code=BCDF-GHJK')).location).to.equal('/console/device?code=BCDF-GHJK');

      const page = await web(server, 'GET', first.location!);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Sign in to approve or deny');
      const next = `/console/device?user_code=${encodeURIComponent(device.json.userCode)}`;
      expect(page.text).to.include(`name="next" value="${next.replace(/&/g, '&amp;')}"`);

      const owner = await signUp(server);
      const signedIn = await web(server, 'POST', '/console/login', {
        form: { email: owner.email, password: GOOD_PASSWORD, next },
        headers: { Origin: server.baseUrl },
      });
      expect(signedIn.location).to.equal(next);
      const cookies = { console_at: signedIn.cookies.console_at!, console_rt: signedIn.cookies.console_rt! };
      const form = await web(server, 'GET', next, { cookies });
      expect(form.text).to.include(`value="${device.json.userCode}"`);
      expect(form.text).to.include('value="approve"');

      const approved = await web(server, 'POST', '/console/device', {
        form: { user_code: device.json.userCode, decision: 'approve' },
        cookies,
        headers: { Origin: server.baseUrl },
      });
      expect(approved.status, approved.text.slice(0, 300)).to.equal(200);
      expect(approved.text).to.include('Approved.');
      const token = await call(server, 'POST', '/api/v1/auth/cli/token', { body: { deviceCode: device.json.deviceCode } });
      expect(token.status, token.text).to.equal(200);
      expect(token.json.user.email).to.equal(owner.email);
    });

    it('denies a typed code; a cross-site approval changes nothing; unknown codes and pasted keys are explained', async () => {
      const owner = await signUp(server);
      const cookies = await consoleSignIn(server, owner.email);
      const device = await call(server, 'POST', '/api/v1/auth/cli/device', { body: { clientName: 'svc' } });
      const typed = device.json.userCode.toLowerCase().replace('-', '');

      expectRefusedPage(
        await web(server, 'POST', '/console/device', {
          form: { user_code: typed, decision: 'approve' },
          cookies,
          headers: { Origin: EVIL },
        }),
        'cross-site approval',
      );
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/cli/token', { body: { deviceCode: device.json.deviceCode } }),
        400,
        'authorization_pending',
      );

      const denied = await web(server, 'POST', '/console/device', {
        form: { user_code: typed, decision: 'deny' },
        cookies,
        headers: { Origin: server.baseUrl },
      });
      expect(denied.status).to.equal(200);
      expect(denied.text).to.include('Denied.');
      await server.runtime.dataSource.query(
        "UPDATE device_codes SET last_polled_at = now() - interval '1 hour' WHERE device_code_hash = encode(sha256($1::bytea), 'hex')",
        [device.json.deviceCode],
      );
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/cli/token', { body: { deviceCode: device.json.deviceCode } }),
        400,
        'access_denied',
      );

      const unknown = await web(server, 'POST', '/console/device', {
        form: { user_code: 'BCDF-GHJK', decision: 'approve' },
        cookies,
        headers: { Origin: server.baseUrl },
      });
      expect(unknown.status).to.equal(404);
      expect(unknown.text).to.include('No pending device request has this code');

      const key = (await apiKey(server, await merchant(server), ['catalog:read']))['X-API-Key']!;
      const pasted = await web(server, 'POST', '/console/device', {
        form: { user_code: 'BCDF-GHJK', decision: 'approve' },
        cookies: { console_at: key },
        headers: { Origin: server.baseUrl },
      });
      expect(pasted.status).to.equal(403);
      expect(pasted.text).to.include('needs an account signed in with its e-mail and password');
    });

    it('never sends the person to another site after signing in', async () => {
      const owner = await signUp(server);
      for (const next of [
        '//evil.example/console/x',
        'http://evil.example/console/',
        '/console/\\evil',
        '/shop/x',
        'javascript:alert(1)',
      ]) {
        const res = await web(server, 'POST', '/console/login', {
          form: { email: owner.email, password: GOOD_PASSWORD, next },
          headers: { Origin: server.baseUrl },
        });
        expect(res.status, next).to.equal(302);
        expect(res.location, next).to.equal('/console');
      }
    });
  });

  describe('the e-mailed links', () => {
    it('/verify-email shows a confirm button; posting it confirms the address once', async () => {
      const owner = await signUp(server);
      const message = await lastMessage(server, owner.email, 'verify_email');
      const link = new URL(/https?:\/\/\S+\/verify-email\?token=\S+/.exec(message!.body)![0]);
      const first = await web(server, 'GET', `${link.pathname}${link.search}`);
      expect(first.status).to.equal(302);
      expect(first.location).to.equal(`/console/verify-email${link.search}`);
      const token = await emailedToken(server, owner.email, 'verify_email');

      // Opening the page does not spend the token (mail scanners open links too).
      const page = await web(server, 'GET', first.location!);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Confirm my e-mail address');
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(owner.accessToken) })).json.emailVerified).to.equal(
        false,
      );

      const confirmed = await web(server, 'POST', '/console/verify-email', { form: { token }, headers: { Origin: server.baseUrl } });
      expect(confirmed.status, confirmed.text.slice(0, 300)).to.equal(200);
      expect(confirmed.text).to.include(`${owner.email} is confirmed`);
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(owner.accessToken) })).json.emailVerified).to.equal(true);

      const again = await web(server, 'POST', '/console/verify-email', { form: { token }, headers: { Origin: server.baseUrl } });
      expect(again.status).to.equal(400);
      expect(again.text).to.include('invalid, already used or expired');
      const missing = await web(server, 'GET', '/console/verify-email');
      expect(missing.status).to.equal(400);
      expect(missing.text).to.include('This link is incomplete');
    });

    it('/reset-password: differing passwords and broken rules are shown without spending the token; a good one resets', async () => {
      const owner = await signUp(server);
      expect((await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: owner.email } })).status).to.equal(202);
      const message = await lastMessage(server, owner.email, 'reset_password');
      const link = new URL(/https?:\/\/\S+\/reset-password\?token=\S+/.exec(message!.body)![0]);
      const first = await web(server, 'GET', `${link.pathname}${link.search}`);
      expect(first.location).to.equal(`/console/reset-password${link.search}`);
      const token = await emailedToken(server, owner.email, 'reset_password');
      const page = await web(server, 'GET', first.location!);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('autocomplete="new-password"');
      expect(page.text).to.match(/10 to \d+ characters/);

      const origin = { Origin: server.baseUrl };
      const differ = await web(server, 'POST', '/console/reset-password', {
        form: { token, password: 'New-Password-7731', password_repeat: 'New-Password-7732' },
        headers: origin,
      });
      expect(differ.status).to.equal(400);
      expect(differ.text).to.include('The two passwords differ');
      expect(differ.text).not.to.include('New-Password-773');

      const weak = await web(server, 'POST', '/console/reset-password', {
        form: { token, password: 'short', password_repeat: 'short' },
        headers: origin,
      });
      expect(weak.status).to.equal(400);
      expect(weak.text).to.include('The password breaks these rules');
      expect(weak.text).to.match(/at least 10 characters/);
      expect(weak.text).to.include(`name="token" value="${token}"`);

      const good = await web(server, 'POST', '/console/reset-password', {
        form: { token, password: 'New-Password-7731', password_repeat: 'New-Password-7731' },
        headers: origin,
      });
      expect(good.status, good.text.slice(0, 400)).to.equal(200);
      expect(good.text).to.include('Your password is changed');
      expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(owner.accessToken) }), 401, 'session_revoked');
      await consoleSignIn(server, owner.email, 'New-Password-7731');

      const spent = await web(server, 'POST', '/console/reset-password', {
        form: { token, password: 'New-Password-8842', password_repeat: 'New-Password-8842' },
        headers: origin,
      });
      expect(spent.status).to.equal(400);
      expect(spent.text).to.include('invalid, already used or expired');
    });
  });
});
