/**
 * E-mailed tokens: address verification, resending it, forgot and reset password. Tokens are single
 * use, expire, and only the latest works; forgot-password reveals nothing about which addresses have
 * accounts; a reset enforces the password rules and signs the account out everywhere.
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
  signIn,
  signUp,
  startIsolatedServer,
  uniqueEmail,
} from '../helpers/accounts';
import { limitKey } from '../../api/auth/accounts';
import { sha256 } from '../../api/auth/secrets';

const NEW_PASSWORD = 'Fresh-Start-2025-ok';

describe('auth: e-mail verification and password reset', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  async function expireToken(token: string): Promise<void> {
    await server.runtime.dataSource.query("UPDATE one_time_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [
      sha256(token),
    ]);
  }

  async function messageCount(recipient: string, template: string): Promise<number> {
    const [row] = await server.runtime.dataSource.query(
      'SELECT count(*)::int AS n FROM outbound_messages WHERE recipient = $1 AND template = $2',
      [recipient, template],
    );
    return row.n as number;
  }

  async function emailVerified(accessToken: string): Promise<boolean> {
    return (await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(accessToken) })).json.emailVerified as boolean;
  }

  describe('POST /auth/verify-email', () => {
    it('verifies the address with the e-mailed token, once; audited', async () => {
      const account = await signUp(server);
      const token = await emailedToken(server, account.email, 'verify_email');
      expect(await emailVerified(account.accessToken)).to.equal(false);
      const res = await call(server, 'POST', '/api/v1/auth/verify-email', { body: { token } });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ verified: true, email: account.email });
      expect(await emailVerified(account.accessToken)).to.equal(true);
      expectProblem(await call(server, 'POST', '/api/v1/auth/verify-email', { body: { token } }), 400, 'invalid_token');
      const audit = (await auditRows(server, account.tenantId)).filter((a) => a.action === 'user.verify_email');
      expect(audit).to.have.length(1);
      expect(audit[0]).to.include({ resource_id: account.userId, actor_id: account.userId });
    });

    it('refuses an expired token and an unknown one with 400 invalid_token', async () => {
      const account = await signUp(server);
      const token = await emailedToken(server, account.email, 'verify_email');
      await expireToken(token);
      expectProblem(await call(server, 'POST', '/api/v1/auth/verify-email', { body: { token } }), 400, 'invalid_token');
      expectProblem(await call(server, 'POST', '/api/v1/auth/verify-email', { body: { token: 'A'.repeat(43) } }), 400, 'invalid_token');
      expect(await emailVerified(account.accessToken)).to.equal(false);
    });

    it('a reset token is not a verification token (tokens are bound to their purpose)', async () => {
      const account = await signUp(server);
      await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: account.email } });
      const resetToken = await emailedToken(server, account.email, 'reset_password');
      expectProblem(await call(server, 'POST', '/api/v1/auth/verify-email', { body: { token: resetToken } }), 400, 'invalid_token');
      const verifyToken = await emailedToken(server, account.email, 'verify_email');
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/reset-password', { body: { token: verifyToken, password: NEW_PASSWORD } }),
        400,
        'invalid_token',
      );
    });
  });

  describe('POST /auth/resend-verification', () => {
    it('sends a new link that retires the earlier one; once a minute (429 with Retry-After); needs a token', async () => {
      const account = await signUp(server);
      const first = await emailedToken(server, account.email, 'verify_email');
      const res = await call(server, 'POST', '/api/v1/auth/resend-verification', { headers: bearer(account.accessToken) });
      expect(res.status, res.text).to.equal(202);
      expect(res.json).to.deep.equal({ accepted: true });
      const second = await emailedToken(server, account.email, 'verify_email');
      expect(second).to.not.equal(first);
      const limited = await call(server, 'POST', '/api/v1/auth/resend-verification', { headers: bearer(account.accessToken) });
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
      expectProblem(await call(server, 'POST', '/api/v1/auth/verify-email', { body: { token: first } }), 400, 'invalid_token');
      expect((await call(server, 'POST', '/api/v1/auth/verify-email', { body: { token: second } })).status).to.equal(200);
      expect((await auditRows(server, account.tenantId)).filter((a) => a.action === 'user.resend_verification')).to.have.length(1);
      expectProblem(await call(server, 'POST', '/api/v1/auth/resend-verification'), 401, 'unauthorized');
    });

    it('answers 202 for a verified address too, and sends nothing', async () => {
      const account = await signUp(server);
      await call(server, 'POST', '/api/v1/auth/verify-email', {
        body: { token: await emailedToken(server, account.email, 'verify_email') },
      });
      await server.runtime.services.rateLimiter.reset(limitKey('resendVerificationPerUser', account.userId));
      const res = await call(server, 'POST', '/api/v1/auth/resend-verification', { headers: bearer(account.accessToken) });
      expect(res.status).to.equal(202);
      expect(res.json).to.deep.equal({ accepted: true });
      expect(await messageCount(account.email, 'verify_email')).to.equal(1);
    });
  });

  describe('POST /auth/forgot-password', () => {
    it('answers alike for a known and an unknown address (status, body, and no sooner than 250 ms); only the known one gets mail', async () => {
      const account = await signUp(server);
      const unknown = uniqueEmail('nobody');
      const startedKnown = Date.now();
      const known = await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: account.email } });
      const knownMs = Date.now() - startedKnown;
      const startedMissing = Date.now();
      const missing = await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: unknown } });
      const missingMs = Date.now() - startedMissing;
      expect(known.status).to.equal(202);
      expect(missing.status).to.equal(202);
      expect(known.json).to.deep.equal({ accepted: true });
      expect(missing.text).to.equal(known.text);
      expect(knownMs).to.be.at.least(245);
      expect(missingMs).to.be.at.least(245);
      expect(await messageCount(account.email, 'reset_password')).to.equal(1);
      expect(await messageCount(unknown, 'reset_password')).to.equal(0);
      // The reset token is hashed and expires after one hour.
      const token = await emailedToken(server, account.email, 'reset_password');
      const [row] = await server.runtime.dataSource.query(
        "SELECT token_hash, extract(epoch from expires_at - created_at) AS ttl FROM one_time_tokens WHERE user_id = $1 AND purpose = 'reset_password'",
        [account.userId],
      );
      expect(row.token_hash).to.equal(sha256(token));
      expect(Math.round(Number(row.ttl))).to.equal(3600);
    });

    it('per address: beyond 3 an hour the answer is the same but nothing more is sent', async () => {
      const account = await signUp(server);
      for (let i = 0; i < 5; i += 1) {
        const res = await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: account.email } });
        expect(res.status).to.equal(202);
      }
      expect(await messageCount(account.email, 'reset_password')).to.equal(3);
    });

    it('per client address: 20 an hour, then 429 with Retry-After', async function () {
      this.timeout(60_000);
      const limited = await startIsolatedServer();
      try {
        for (let i = 0; i < 20; i += 1)
          expect((await call(limited, 'POST', '/api/v1/auth/forgot-password', { body: { email: uniqueEmail('probe') } })).status).to.equal(
            202,
          );
        const res = await call(limited, 'POST', '/api/v1/auth/forgot-password', { body: { email: uniqueEmail('probe') } });
        expectProblem(res, 429, 'rate_limited');
        expect(Number(res.headers.get('retry-after'))).to.be.within(1, 3600);
      } finally {
        await limited.close();
      }
    });
  });

  describe('POST /auth/reset-password', () => {
    it('sets the password, spends the token, revokes every session, verifies the address; audited', async () => {
      const account = await signUp(server);
      const second = await signIn(server, account.email, account.password);
      await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: account.email } });
      const token = await emailedToken(server, account.email, 'reset_password');
      const res = await call(server, 'POST', '/api/v1/auth/reset-password', { body: { token, password: NEW_PASSWORD } });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ reset: true, revokedSessions: 2 });
      for (const session of [account, second]) {
        expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(session.accessToken) }), 401, 'session_revoked');
        expectProblem(
          await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: session.refreshToken } }),
          401,
          'invalid_refresh_token',
        );
      }
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } }),
        401,
        'invalid_credentials',
      );
      const login = await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: NEW_PASSWORD } });
      expect(login.status).to.equal(200);
      expect(login.json.user.emailVerified).to.equal(true);
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/reset-password', { body: { token, password: 'Another-Pass-123' } }),
        400,
        'invalid_token',
      );
      const audit = (await auditRows(server, account.tenantId)).filter((a) => a.action.startsWith('user.password_reset'));
      expect(audit.map((a) => a.action)).to.deep.equal(['user.password_reset_request', 'user.password_reset']);
      expect(audit[1]!.after).to.include({ revokedSessions: 2 });
      expect(JSON.stringify(audit)).not.to.include(NEW_PASSWORD);
    });

    it('refuses an expired token, and a superseded one (only the latest link works)', async () => {
      const account = await signUp(server);
      await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: account.email } });
      const first = await emailedToken(server, account.email, 'reset_password');
      await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: account.email } });
      const second = await emailedToken(server, account.email, 'reset_password');
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/reset-password', { body: { token: first, password: NEW_PASSWORD } }),
        400,
        'invalid_token',
      );
      await expireToken(second);
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/reset-password', { body: { token: second, password: NEW_PASSWORD } }),
        400,
        'invalid_token',
      );
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(account.accessToken) })).status).to.equal(200);
    });

    for (const [rule, passwordFor, message] of RULE_BREAKERS) {
      it(`enforces the password rules (${rule}) without spending the token`, async () => {
        const account = await signUp(server);
        const password = passwordFor(account.email);
        await call(server, 'POST', '/api/v1/auth/forgot-password', { body: { email: account.email } });
        const token = await emailedToken(server, account.email, 'reset_password');
        const res = await call(server, 'POST', '/api/v1/auth/reset-password', { body: { token, password } });
        expectProblem(res, 400, 'validation_failed');
        expect(res.json.errors.map((e: { message: string }) => e.message).join(' | ')).to.match(message);
        for (const error of res.json.errors) expect(error.path).to.equal('body.password');
        expect(
          (await call(server, 'POST', '/api/v1/auth/reset-password', { body: { token, password: GOOD_PASSWORD.replace('42', '43') } }))
            .status,
        ).to.equal(200);
      });
    }
  });
});
