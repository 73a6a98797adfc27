/**
 * Sign-in and tokens: login, no account enumeration (same answer and time for an unknown address and
 * a wrong password), the login limits, refresh rotation with reuse detection, logout, and the access
 * tokens the authenticator refuses (expired, tampered, unsigned, of a revoked session).
 */
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, bearer, expectProblem, signIn, signUp, startIsolatedServer, uniqueEmail } from '../helpers/accounts';
import { signAccessToken } from '../../api/auth/access-tokens';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const result = await work();
  return [result, Number(process.hrtime.bigint() - started) / 1e6];
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('auth: sign-in and tokens', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  describe('POST /auth/login', () => {
    it('answers a token pair and the user, opens a session and audits it', async () => {
      const account = await signUp(server);
      const res = await call(server, 'POST', '/api/v1/auth/login', {
        body: { email: account.email.toUpperCase(), password: account.password },
        headers: { 'User-Agent': 'login-test' },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ tokenType: 'Bearer', expiresIn: 900 });
      expect(res.json.user).to.include({ id: account.userId, email: account.email, tenantId: account.tenantId });
      expect(res.json.sessionId).to.not.equal(account.sessionId);
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(res.json.accessToken) })).status).to.equal(200);
      const audit = await auditRows(server, account.tenantId);
      const created = audit.filter((a) => a.action === 'session.create');
      expect(created.map((a) => a.resource_id)).to.deep.equal([account.sessionId, res.json.sessionId]);
      expect(created[1]).to.include({ actor_type: 'user', actor_id: account.userId, ip: '127.0.0.1' });
    });

    it('answers an unknown address and a wrong password alike: 401 invalid_credentials, same body, similar time', async () => {
      const account = await signUp(server);
      const unknown = uniqueEmail('nobody');
      const strip = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });
      const wrongTimes: number[] = [];
      const unknownTimes: number[] = [];
      let wrong: Awaited<ReturnType<typeof call>> | undefined;
      let missing: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 5; i += 1) {
        let ms: number;
        [wrong, ms] = await timed(() =>
          call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: 'Wrong-Password-99' } }),
        );
        wrongTimes.push(ms);
        [missing, ms] = await timed(() =>
          call(server, 'POST', '/api/v1/auth/login', { body: { email: unknown, password: 'Wrong-Password-99' } }),
        );
        unknownTimes.push(ms);
      }
      expectProblem(wrong!, 401, 'invalid_credentials');
      expectProblem(missing!, 401, 'invalid_credentials');
      expect(strip(wrong!.json)).to.deep.equal(strip(missing!.json));
      expect(wrong!.headers.get('www-authenticate')).to.equal(missing!.headers.get('www-authenticate'));
      // Both pay for an Argon2 verification; the medians stay close (a skipped verification would be ~10x faster).
      const [w, u] = [median(wrongTimes), median(unknownTimes)];
      expect(u, `unknown ${u} ms vs wrong password ${w} ms`).to.be.greaterThan(w * 0.5);
      expect(w, `wrong password ${w} ms vs unknown ${u} ms`).to.be.greaterThan(u * 0.5);
    });

    it('with two-factor on: answers a challenge and no tokens, opens no session; a wrong password is still plain 401', async () => {
      const account = await signUp(server);
      // Turning two-factor on through its operations is tested with them; here only login's side matters.
      await server.runtime.dataSource.query('UPDATE users SET totp_enabled_at = now() WHERE id = $1', [account.userId]);
      const res = await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } });
      expect(res.status, res.text).to.equal(200);
      expect(Object.keys(res.json)).to.have.members(['twoFactorRequired', 'challengeToken', 'expiresIn']);
      expect(res.json.twoFactorRequired).to.equal(true);
      expect(res.json.challengeToken).to.be.a('string').with.length.greaterThan(30);
      expect(res.json.expiresIn).to.be.a('number').greaterThan(0);
      const sessions = await server.runtime.dataSource.query('SELECT id FROM sessions WHERE user_id = $1', [account.userId]);
      expect(sessions.map((s: { id: string }) => s.id)).to.deep.equal([account.sessionId]);
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: 'Wrong-Password-99' } }),
        401,
        'invalid_credentials',
      );
    });

    it('validates the body', async () => {
      expectProblem(await call(server, 'POST', '/api/v1/auth/login', { body: { email: 'x@example.test' } }), 400, 'validation_failed');
      expectProblem(await call(server, 'POST', '/api/v1/auth/login', { body: { email: 'nope', password: 'x' } }), 400, 'validation_failed');
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/login', { body: { email: 'x@example.test', password: 'x', remember: true } }),
        400,
        'validation_failed',
      );
    });

    it('limits attempts per address and e-mail: the 11th in 15 minutes is 429 with Retry-After, even with the right password', async () => {
      const limited = await startIsolatedServer();
      try {
        const account = await signUp(limited);
        for (let i = 0; i < 10; i += 1) {
          expectProblem(
            await call(limited, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: `Wrong-Guess-${i}0` } }),
            401,
            'invalid_credentials',
          );
        }
        const res = await call(limited, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } });
        expectProblem(res, 429, 'rate_limited');
        expect(Number(res.headers.get('retry-after'))).to.be.within(1, 900);
        // Another account from the same address is not locked by it.
        const other = await signUp(limited);
        expect(
          (await call(limited, 'POST', '/api/v1/auth/login', { body: { email: other.email, password: other.password } })).status,
        ).to.equal(200);
      } finally {
        await limited.close();
      }
    });

    it('a successful sign-in clears the per-account count', async () => {
      const limited = await startIsolatedServer();
      try {
        const account = await signUp(limited);
        for (let round = 0; round < 2; round += 1) {
          for (let i = 0; i < 9; i += 1)
            await call(limited, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: 'Wrong-Guess-00' } });
          expect(
            (await call(limited, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } })).status,
          ).to.equal(200);
        }
      } finally {
        await limited.close();
      }
    });

    it('limits attempts per client address across accounts (password spraying): 429 after 100 in 15 minutes', async function () {
      this.timeout(120_000);
      const limited = await startIsolatedServer();
      try {
        for (let i = 0; i < 100; i += 1) {
          expect(
            (await call(limited, 'POST', '/api/v1/auth/login', { body: { email: uniqueEmail('spray'), password: 'Summer-2024-Pw' } }))
              .status,
          ).to.equal(401);
        }
        expectProblem(
          await call(limited, 'POST', '/api/v1/auth/login', { body: { email: uniqueEmail('spray'), password: 'Summer-2024-Pw' } }),
          429,
          'rate_limited',
        );
      } finally {
        await limited.close();
      }
    });
  });

  describe('POST /auth/refresh', () => {
    it('rotates: a new pair for the same session; the old access token keeps working until it expires', async () => {
      const account = await signUp(server);
      const res = await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: account.refreshToken } });
      expect(res.status, res.text).to.equal(200);
      expect(res.json.sessionId).to.equal(account.sessionId);
      expect(res.json.refreshToken).to.not.equal(account.refreshToken);
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(res.json.accessToken) })).status).to.equal(200);
      const again = await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: res.json.refreshToken } });
      expect(again.status).to.equal(200);
    });

    it('reuse of a used refresh token revokes the session: 401 refresh_token_reused, then its access tokens and newest refresh token fail', async () => {
      const account = await signUp(server);
      const rotated = await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: account.refreshToken } });
      expect(rotated.status).to.equal(200);
      // An attacker replays the stolen first token.
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: account.refreshToken } }),
        401,
        'refresh_token_reused',
      );
      for (const token of [account.accessToken, rotated.json.accessToken]) {
        expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(token) }), 401, 'session_revoked');
      }
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: rotated.json.refreshToken } }),
        401,
        'invalid_refresh_token',
      );
      const [session] = await server.runtime.dataSource.query('SELECT revoke_reason FROM sessions WHERE id = $1', [account.sessionId]);
      expect(session.revoke_reason).to.equal('refresh_token_reuse');
      const audit = await auditRows(server, account.tenantId);
      expect(audit.find((a) => a.action === 'session.revoke')).to.deep.include({
        resource_id: account.sessionId,
        after: { reason: 'refresh_token_reuse' },
      });
    });

    it('keeps an honest rotation chain working, and reuse of an early token revokes every later one of its session only', async () => {
      const account = await signUp(server);
      const other = await signIn(server, account.email, account.password);
      // A → B → C → D: each rotation answers a working pair.
      const chain = [{ refreshToken: account.refreshToken, accessToken: account.accessToken }];
      for (let i = 0; i < 3; i++) {
        const next = await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: chain[chain.length - 1]!.refreshToken } });
        expect(next.status, next.text).to.equal(200);
        expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(next.json.accessToken) })).status).to.equal(200);
        chain.push(next.json);
      }
      // B, already traded for C, is presented again: the whole family (the session) ends, D included.
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: chain[1]!.refreshToken } }),
        401,
        'refresh_token_reused',
      );
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: chain[3]!.refreshToken } }),
        401,
        'invalid_refresh_token',
      );
      expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(chain[3]!.accessToken) }), 401, 'session_revoked');
      // The account's other session is another family: untouched.
      const otherRotated = await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: other.refreshToken } });
      expect(otherRotated.status, otherRotated.text).to.equal(200);
    });

    it('refuses unknown and expired refresh tokens with 401 invalid_refresh_token', async () => {
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: 'rt_not-a-real-token' } }),
        401,
        'invalid_refresh_token',
      );
      const account = await signUp(server);
      await server.runtime.dataSource.query("UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE session_id = $1", [
        account.sessionId,
      ]);
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: account.refreshToken } }),
        401,
        'invalid_refresh_token',
      );
    });
  });

  describe('POST /auth/logout', () => {
    it('revokes the session (204): its access token and refresh token stop at once; audited', async () => {
      const account = await signUp(server);
      const other = await signIn(server, account.email, account.password);
      const res = await call(server, 'POST', '/api/v1/auth/logout', { body: { refreshToken: account.refreshToken } });
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(account.accessToken) }), 401, 'session_revoked');
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: account.refreshToken } }),
        401,
        'invalid_refresh_token',
      );
      // The other session is untouched.
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(other.accessToken) })).status).to.equal(200);
      const revokes = (await auditRows(server, account.tenantId)).filter((a) => a.action === 'session.revoke');
      expect(revokes).to.have.length(1);
      expect(revokes[0]).to.deep.include({ resource_id: account.sessionId, actor_id: account.userId, after: { reason: 'logout' } });
    });

    it('is idempotent and reveals nothing: a second logout and an unknown token also answer 204, with no audit entry', async () => {
      const account = await signUp(server);
      expect((await call(server, 'POST', '/api/v1/auth/logout', { body: { refreshToken: account.refreshToken } })).status).to.equal(204);
      expect((await call(server, 'POST', '/api/v1/auth/logout', { body: { refreshToken: account.refreshToken } })).status).to.equal(204);
      expect((await call(server, 'POST', '/api/v1/auth/logout', { body: { refreshToken: 'rt_unknown' } })).status).to.equal(204);
      expect((await auditRows(server, account.tenantId)).filter((a) => a.action === 'session.revoke')).to.have.length(1);
      expectProblem(await call(server, 'POST', '/api/v1/auth/logout', { body: {} }), 400, 'validation_failed');
    });
  });

  describe('access tokens the authenticator refuses', () => {
    it('no token, or a malformed header: 401', async () => {
      expectProblem(await call(server, 'GET', '/api/v1/auth/account'), 401, 'unauthorized');
      expectProblem(
        await call(server, 'GET', '/api/v1/auth/account', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } }),
        401,
        'unauthorized',
      );
    });

    it('an expired token: 401 token_expired', async () => {
      const account = await signUp(server);
      const expired = await signAccessToken(
        server.runtime.services.config.appSecret,
        { sub: account.userId, sid: account.sessionId, tid: account.tenantId },
        1,
        Date.now() - 10_000,
      );
      expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(expired) }), 401, 'token_expired');
    });

    it('a tampered payload, a wrong signature, alg none and another algorithm: 401 invalid_token', async () => {
      const account = await signUp(server);
      const [header, payload, signature] = account.accessToken.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const tampered = `${header}.${b64({ ...claims, sub: '01900000-0000-7000-8000-000000000000' })}.${signature}`;
      const wrongKey = await signAccessToken('x'.repeat(40), { sub: account.userId, sid: account.sessionId, tid: account.tenantId }, 900);
      const none = `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`;
      const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).sign(new Uint8Array(64));
      for (const token of [tampered, wrongKey, none, hs512, 'not.a.jwt', `${account.accessToken}x`]) {
        expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(token) }), 401, 'invalid_token');
      }
    });

    it("a token naming another user's session: 401", async () => {
      const a = await signUp(server);
      const b = await signUp(server);
      const forged = await signAccessToken(
        server.runtime.services.config.appSecret,
        { sub: a.userId, sid: b.sessionId, tid: a.tenantId },
        900,
      );
      expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(forged) }), 401, 'session_revoked');
    });
  });
});
