/**
 * Sign-up: the password rules and registration options, merchant and partner registration (one
 * transaction with its audit entries, a verification e-mail, tokens right away), the password rules
 * enforced, closed registration, duplicate addresses rolled back without a trace, and the limit.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import {
  auditRows,
  bearer,
  emailedToken,
  expectProblem,
  GOOD_PASSWORD,
  RULE_BREAKERS,
  startIsolatedServer,
  uniqueEmail,
} from '../helpers/accounts';

describe('auth: sign-up', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  describe('GET /auth/password-rules and /auth/registration', () => {
    it('serves the enforced rules and the size of the common-password list, without a token', async () => {
      const res = await call(server, 'GET', '/api/v1/auth/password-rules');
      expect(res.status).to.equal(200);
      expect(res.json).to.include({ minLength: 10, requireUppercase: true, requireDigit: true, notContainingEmail: true, notCommon: true });
      expect(res.json.commonPasswordCount).to.be.a('number').greaterThan(100);
    });

    it('says registration is open and lists the fields read from the validators', async () => {
      const res = await call(server, 'GET', '/api/v1/auth/registration');
      expect(res.status).to.equal(200);
      expect(res.json.open).to.equal(true);
      expect(res.json.passwordRules).to.equal('/api/v1/auth/password-rules');
      const byName = Object.fromEntries((res.json.fields as Array<{ name: string }>).map((f) => [f.name, f]));
      expect(Object.keys(byName)).to.have.members(['email', 'password', 'name', 'companyName', 'locale', 'invitationToken']);
      expect(byName.email).to.include({ required: true, type: 'email' });
      expect(byName.password).to.include({ required: true, type: 'password' });
      expect(byName.locale).to.include({ required: false });
      expect(byName.invitationToken).to.include({ required: false });
      expect((res.json.partnerFields as Array<{ name: string }>).map((f) => f.name)).to.include('website');
    });

    it('says so when registration is closed, and registration answers 403 registration_closed', async () => {
      const closed = await startIsolatedServer({ auth: { registrationOpen: false } });
      try {
        expect((await call(closed, 'GET', '/api/v1/auth/registration')).json.open).to.equal(false);
        const body = { email: uniqueEmail(), password: GOOD_PASSWORD, name: 'N', companyName: 'Closed Co' };
        expectProblem(await call(closed, 'POST', '/api/v1/auth/register', { body }), 403, 'registration_closed');
        expectProblem(await call(closed, 'POST', '/api/v1/auth/partner-register', { body }), 403, 'registration_closed');
        const rows = await server.runtime.dataSource.query('SELECT 1 FROM users WHERE email = $1', [body.email]);
        expect(rows).to.have.length(0);
      } finally {
        await closed.close();
      }
    });
  });

  describe('POST /auth/register', () => {
    it('creates a merchant tenant and its owner, signs in at once and e-mails a verification link', async () => {
      const email = uniqueEmail('Mixed.Case');
      const res = await call(server, 'POST', '/api/v1/auth/register', {
        body: { email: `  ${email.toUpperCase()} `, password: GOOD_PASSWORD, name: 'Ada Owner', companyName: 'Ada Goods', locale: 'tr-TR' },
        headers: { 'User-Agent': 'signup-test/1.0' },
      });
      expect(res.status, res.text).to.equal(201);
      const lower = email.toLowerCase();
      expect(res.json.user).to.include({
        email: lower,
        name: 'Ada Owner',
        locale: 'tr-TR',
        emailVerified: false,
        twoFactorEnabled: false,
        tenantRole: 'owner',
        platformRole: null,
      });
      expect(res.json.tenant).to.include({ name: 'Ada Goods', kind: 'merchant' });
      expect(res.json.user.tenantId).to.equal(res.json.tenant.id);
      expect(res.json).to.include({ tokenType: 'Bearer', expiresIn: 900 });
      expect(res.json.refreshToken).to.match(/^rt_/);
      expect(res.text).not.to.match(/passwordHash|password_hash|argon2/);

      const account = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(res.json.accessToken) });
      expect(account.status).to.equal(200);
      expect(account.json.tenant).to.deep.equal({ id: res.json.tenant.id, name: 'Ada Goods', kind: 'merchant', role: 'owner' });

      // The password is stored as an Argon2id hash, never as given.
      const [row] = await server.runtime.dataSource.query('SELECT password_hash FROM users WHERE id = $1', [res.json.user.id]);
      expect(row.password_hash).to.match(/^\$argon2id\$/);

      // The verification token is e-mailed; only its hash is stored, with the configured expiry.
      const token = await emailedToken(server, lower, 'verify_email');
      const tokens = await server.runtime.dataSource.query(
        "SELECT token_hash, extract(epoch from expires_at - created_at) AS ttl FROM one_time_tokens WHERE user_id = $1 AND purpose = 'verify_email'",
        [res.json.user.id],
      );
      expect(tokens).to.have.length(1);
      expect(tokens[0].token_hash).to.not.include(token);
      expect(Math.round(Number(tokens[0].ttl))).to.equal(server.runtime.services.config.auth.emailTokenTtlSeconds);

      // Audit: the tenant, the user and the first session, by the new user, in one request.
      const audit = await auditRows(server, res.json.tenant.id);
      expect(audit.map((a) => a.action)).to.deep.equal(['tenant.create', 'user.register', 'session.create']);
      for (const entry of audit) expect(entry).to.include({ actor_type: 'user', actor_id: res.json.user.id });
      expect(audit[1]!.after).to.include({ email: lower, tenantRole: 'owner' });
      expect(JSON.stringify(audit)).not.to.match(/argon2|Correct-Horse/);
    });

    it('registers a partner account with its website', async () => {
      const res = await call(server, 'POST', '/api/v1/auth/partner-register', {
        body: {
          email: uniqueEmail('partner'),
          password: GOOD_PASSWORD,
          name: 'Pat Partner',
          companyName: 'Apps Inc',
          website: 'https://apps.example.test',
        },
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.json.tenant).to.include({ kind: 'partner', name: 'Apps Inc', website: 'https://apps.example.test' });
      expect(res.json.user.tenantRole).to.equal('owner');
    });

    it('validates the body: address, required fields, unknown fields (storeName and role are not accepted)', async () => {
      const base = { email: uniqueEmail(), password: GOOD_PASSWORD, name: 'N', companyName: 'C' };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...base, email: 'not-an-address' }, 'body.email'],
        [{ ...base, companyName: undefined }, 'body.companyName'],
        [{ ...base, name: '   ' }, 'body.name'],
        [{ ...base, locale: 'english please' }, 'body.locale'],
        [{ ...base, tenantRole: 'admin' }, 'body.tenantRole'],
        [{ ...base, platformRole: 'platform_admin' }, 'body.platformRole'],
      ];
      for (const [body, path] of cases) {
        const res = await call(server, 'POST', '/api/v1/auth/register', { body });
        expectProblem(res, 400, 'validation_failed');
        expect(
          res.json.errors.map((e: { path: string }) => e.path),
          JSON.stringify(body),
        ).to.deep.equal([path]);
      }
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/partner-register', { body: { ...base, website: 'javascript:alert(1)' } }),
        400,
        'validation_failed',
      );
    });

    for (const [rule, passwordFor, message] of RULE_BREAKERS) {
      it(`enforces the password rules: ${rule} → 400 validation_failed naming the rule, nothing created`, async () => {
        const email = uniqueEmail('weak');
        const password = passwordFor(email);
        const res = await call(server, 'POST', '/api/v1/auth/register', {
          body: { email, password, name: 'N', companyName: `Weak ${rule}` },
        });
        expectProblem(res, 400, 'validation_failed');
        expect(res.json.errors).to.have.length.greaterThan(0);
        for (const error of res.json.errors) expect(error.path).to.equal('body.password');
        expect(res.json.errors.map((e: { message: string }) => e.message).join(' | ')).to.match(message);
        expect(await server.runtime.dataSource.query('SELECT 1 FROM users WHERE email = $1', [email])).to.have.length(0);
      });
    }

    it('answers 409 email_taken for a registered address (in any case) and rolls back: no tenant, no audit entry, no e-mail', async () => {
      const email = uniqueEmail('dup');
      const first = await call(server, 'POST', '/api/v1/auth/register', {
        body: { email, password: GOOD_PASSWORD, name: 'First', companyName: 'First Co' },
      });
      expect(first.status).to.equal(201);
      const company = `Second Co ${Date.now()}`;
      const res = await call(server, 'POST', '/api/v1/auth/register', {
        body: { email: email.toUpperCase(), password: GOOD_PASSWORD, name: 'Second', companyName: company },
      });
      expectProblem(res, 409, 'email_taken');
      expect(res.json.errors).to.deep.equal([{ path: 'body.email', message: 'email is already registered' }]);
      const db = server.runtime.dataSource;
      expect(await db.query('SELECT id FROM tenants WHERE name = $1', [company])).to.have.length(0);
      expect(
        await db.query("SELECT id FROM audit_log WHERE after->>'name' = $1 OR (action = 'user.register' AND after->>'email' = $2)", [
          company,
          email,
        ]),
      ).to.have.length(1);
      expect(await db.query('SELECT id FROM outbound_messages WHERE recipient = $1', [email])).to.have.length(1);
      // The first account is untouched.
      const login = await call(server, 'POST', '/api/v1/auth/login', { body: { email, password: GOOD_PASSWORD } });
      expect(login.status).to.equal(200);
      expect(login.json.user.name).to.equal('First');
    });

    it('limits registration to 10 per hour per client address (429 with Retry-After)', async () => {
      const limited = await startIsolatedServer();
      try {
        for (let i = 0; i < 10; i += 1) {
          // Invalid passwords still count: the limit comes first, so it cannot be probed cheaply.
          const res = await call(limited, 'POST', '/api/v1/auth/register', {
            body: { email: uniqueEmail(), password: 'weak', name: 'N', companyName: 'C' },
          });
          expect(res.status).to.equal(400);
        }
        const res = await call(limited, 'POST', '/api/v1/auth/register', {
          body: { email: uniqueEmail(), password: GOOD_PASSWORD, name: 'N', companyName: 'C' },
        });
        expectProblem(res, 429, 'rate_limited');
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).to.be.within(1, 3600);
      } finally {
        await limited.close();
      }
    });
  });
});
