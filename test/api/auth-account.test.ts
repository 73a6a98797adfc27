/**
 * The signed-in user's sessions and account: listing and revoking sessions (a revoked session's
 * access token stops at once; another user's session is 404), the profile, and the password change
 * (current password checked and limited, rules enforced, other sessions ended).
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, bearer, expectProblem, GOOD_PASSWORD, RULE_BREAKERS, signIn, signUp } from '../helpers/accounts';

const NEW_PASSWORD = 'Changed-Secret-77-ok';

describe('auth: sessions and account', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  async function status(accessToken: string): Promise<number> {
    return (await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(accessToken) })).status;
  }

  describe('sessions', () => {
    it('lists the live sessions, marking the current one, with device, address and times', async () => {
      const account = await signUp(server);
      const laptop = await signIn(server, account.email, account.password, { 'User-Agent': 'Laptop/1.0' });
      const phone = await signIn(server, account.email, account.password, { 'User-Agent': 'Phone/2.0' });
      await call(server, 'POST', '/api/v1/auth/logout', { body: { refreshToken: phone.refreshToken } });
      const res = await call(server, 'GET', '/api/v1/auth/sessions', { headers: bearer(laptop.accessToken) });
      expect(res.status, res.text).to.equal(200);
      const items = res.json.items as Array<Record<string, unknown>>;
      expect(items.map((s) => s.id)).to.have.members([account.sessionId, laptop.sessionId]);
      const current = items.find((s) => s.current)!;
      expect(current).to.include({ id: laptop.sessionId, userAgent: 'Laptop/1.0', ip: '127.0.0.1', method: 'password' });
      expect(items.filter((s) => s.current)).to.have.length(1);
      for (const item of items) {
        expect(Object.keys(item)).to.have.members(['id', 'current', 'ip', 'userAgent', 'method', 'createdAt', 'lastSeenAt', 'expiresAt']);
        expect(new Date(item.expiresAt as string).getTime()).to.be.greaterThan(Date.now());
      }
      // Expired sessions are not listed.
      await server.runtime.dataSource.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [
        account.sessionId,
      ]);
      const after = await call(server, 'GET', '/api/v1/auth/sessions', { headers: bearer(laptop.accessToken) });
      expect(after.json.items.map((s: { id: string }) => s.id)).to.deep.equal([laptop.sessionId]);
    });

    it('revokes one session (204): its access token gets 401 session_revoked at once; audited', async () => {
      const account = await signUp(server);
      const other = await signIn(server, account.email, account.password);
      const res = await call(server, 'DELETE', `/api/v1/auth/sessions/${other.sessionId}`, { headers: bearer(account.accessToken) });
      expect(res.status, res.text).to.equal(204);
      expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(other.accessToken) }), 401, 'session_revoked');
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: other.refreshToken } }),
        401,
        'invalid_refresh_token',
      );
      expect(await status(account.accessToken)).to.equal(200);
      // Already revoked: 404.
      expectProblem(
        await call(server, 'DELETE', `/api/v1/auth/sessions/${other.sessionId}`, { headers: bearer(account.accessToken) }),
        404,
        'not_found',
      );
      const audit = (await auditRows(server, account.tenantId)).filter((a) => a.action === 'session.revoke');
      expect(audit).to.have.length(1);
      expect(audit[0]).to.deep.include({ resource_id: other.sessionId, actor_id: account.userId, after: { reason: 'revoked_by_user' } });
    });

    it("answers 404 for another user's session (and leaves it alive) and for an unknown id; 400 for a malformed id", async () => {
      const mine = await signUp(server);
      const theirs = await signUp(server);
      expectProblem(
        await call(server, 'DELETE', `/api/v1/auth/sessions/${theirs.sessionId}`, { headers: bearer(mine.accessToken) }),
        404,
        'not_found',
      );
      expect(await status(theirs.accessToken)).to.equal(200);
      expectProblem(
        await call(server, 'DELETE', '/api/v1/auth/sessions/01900000-0000-7000-8000-000000000000', { headers: bearer(mine.accessToken) }),
        404,
        'not_found',
      );
      expectProblem(
        await call(server, 'DELETE', '/api/v1/auth/sessions/123', { headers: bearer(mine.accessToken) }),
        400,
        'validation_failed',
      );
      // Another user's sessions never show in the list.
      const list = await call(server, 'GET', '/api/v1/auth/sessions', { headers: bearer(mine.accessToken) });
      expect(list.json.items.map((s: { id: string }) => s.id)).to.deep.equal([mine.sessionId]);
      expect((await auditRows(server, theirs.tenantId)).filter((a) => a.action === 'session.revoke')).to.have.length(0);
    });

    it('revoking the current session signs out', async () => {
      const account = await signUp(server);
      expect(
        (await call(server, 'DELETE', `/api/v1/auth/sessions/${account.sessionId}`, { headers: bearer(account.accessToken) })).status,
      ).to.equal(204);
      expectProblem(await call(server, 'GET', '/api/v1/auth/sessions', { headers: bearer(account.accessToken) }), 401, 'session_revoked');
    });

    it('revokes every other session: 200 { revoked: n }, the current one stays; audited', async () => {
      const account = await signUp(server);
      const a = await signIn(server, account.email, account.password);
      const b = await signIn(server, account.email, account.password);
      const bystander = await signUp(server);
      const res = await call(server, 'DELETE', '/api/v1/auth/sessions/others', { headers: bearer(a.accessToken) });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ revoked: 2 });
      expect(await status(a.accessToken)).to.equal(200);
      for (const token of [account.accessToken, b.accessToken])
        expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(token) }), 401, 'session_revoked');
      expect(await status(bystander.accessToken)).to.equal(200);
      const again = await call(server, 'DELETE', '/api/v1/auth/sessions/others', { headers: bearer(a.accessToken) });
      expect(again.json).to.deep.equal({ revoked: 0 });
      const audit = (await auditRows(server, account.tenantId)).filter((e) => e.action === 'session.revoke_others');
      expect(audit.map((e) => e.after.revoked)).to.deep.equal([2, 0]);
    });

    it('needs a signed-in user', async () => {
      expectProblem(await call(server, 'GET', '/api/v1/auth/sessions'), 401, 'unauthorized');
      expectProblem(await call(server, 'DELETE', '/api/v1/auth/sessions/others'), 401, 'unauthorized');
    });
  });

  describe('account profile', () => {
    it('reads the profile', async () => {
      const account = await signUp(server, { name: 'Grace Owner', companyName: 'Grace Ltd' });
      const res = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(account.accessToken) });
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.include({
        id: account.userId,
        email: account.email,
        name: 'Grace Owner',
        locale: null,
        phone: null,
        phoneVerified: false,
        emailVerified: false,
        twoFactorEnabled: false,
        platformRole: null,
        tenant: { id: account.tenantId, name: 'Grace Ltd', kind: 'merchant', role: 'owner' },
      });
      expect(res.text).not.to.match(/hash|totp|secret/i);
    });

    it('updates name and locale (audited with before and after); null clears the locale', async () => {
      const account = await signUp(server, { name: 'Old Name' });
      const res = await call(server, 'PATCH', '/api/v1/auth/account', {
        headers: bearer(account.accessToken),
        body: { name: 'New Name', locale: 'de-DE' },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ name: 'New Name', locale: 'de-DE' });
      const cleared = await call(server, 'PATCH', '/api/v1/auth/account', { headers: bearer(account.accessToken), body: { locale: null } });
      expect(cleared.json).to.include({ name: 'New Name', locale: null });
      // No change, no audit entry.
      await call(server, 'PATCH', '/api/v1/auth/account', { headers: bearer(account.accessToken), body: { name: 'New Name' } });
      const audit = (await auditRows(server, account.tenantId)).filter((a) => a.action === 'user.update');
      expect(audit.map((a) => [a.before, a.after])).to.deep.equal([
        [
          { name: 'Old Name', locale: null },
          { name: 'New Name', locale: 'de-DE' },
        ],
        [{ locale: 'de-DE' }, { locale: null }],
      ]);
    });

    it('refuses an empty update and fields that change elsewhere (phone, email, roles)', async () => {
      const account = await signUp(server);
      for (const body of [
        {},
        { phone: '+905551112233' },
        { email: 'other@example.test' },
        { tenantRole: 'admin' },
        { platformRole: 'platform_admin' },
        { name: '' },
      ]) {
        expectProblem(
          await call(server, 'PATCH', '/api/v1/auth/account', { headers: bearer(account.accessToken), body }),
          400,
          'validation_failed',
        );
      }
      expect((await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(account.accessToken) })).json).to.include({
        email: account.email,
        phone: null,
        platformRole: null,
      });
    });
  });

  describe('POST /auth/account/password', () => {
    it('changes the password and revokes every other session; the current one stays; audited without secrets', async () => {
      const account = await signUp(server);
      const other = await signIn(server, account.email, account.password);
      const res = await call(server, 'POST', '/api/v1/auth/account/password', {
        headers: bearer(account.accessToken),
        body: { currentPassword: account.password, newPassword: NEW_PASSWORD },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ changed: true, revokedSessions: 1 });
      expect(await status(account.accessToken)).to.equal(200);
      expectProblem(await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(other.accessToken) }), 401, 'session_revoked');
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } }),
        401,
        'invalid_credentials',
      );
      expect(
        (await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: NEW_PASSWORD } })).status,
      ).to.equal(200);
      const audit = (await auditRows(server, account.tenantId)).filter((a) => a.action === 'user.password_change');
      expect(audit).to.have.length(1);
      expect(audit[0]!.after).to.include({ revokedSessions: 1 });
      expect(JSON.stringify(audit)).not.to.match(/Changed-Secret|Correct-Horse|argon2/);
    });

    it('a wrong current password is 400 invalid_password; the 6th attempt in 15 minutes is 429', async () => {
      const account = await signUp(server);
      for (let i = 0; i < 5; i += 1) {
        expectProblem(
          await call(server, 'POST', '/api/v1/auth/account/password', {
            headers: bearer(account.accessToken),
            body: { currentPassword: `Wrong-Guess-${i}0`, newPassword: NEW_PASSWORD },
          }),
          400,
          'invalid_password',
        );
      }
      const res = await call(server, 'POST', '/api/v1/auth/account/password', {
        headers: bearer(account.accessToken),
        body: { currentPassword: account.password, newPassword: NEW_PASSWORD },
      });
      expectProblem(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).to.be.within(1, 900);
      expect(
        (await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } })).status,
      ).to.equal(200);
    });

    for (const [rule, passwordFor, message] of RULE_BREAKERS) {
      it(`enforces the password rules on the new password: ${rule}`, async () => {
        const account = await signUp(server);
        const res = await call(server, 'POST', '/api/v1/auth/account/password', {
          headers: bearer(account.accessToken),
          body: { currentPassword: account.password, newPassword: passwordFor(account.email) },
        });
        expectProblem(res, 400, 'validation_failed');
        for (const error of res.json.errors) expect(error.path).to.equal('body.newPassword');
        expect(res.json.errors.map((e: { message: string }) => e.message).join(' | ')).to.match(message);
        expect(
          (await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } })).status,
        ).to.equal(200);
      });
    }

    it('refuses the current password as the new one', async () => {
      const account = await signUp(server);
      const res = await call(server, 'POST', '/api/v1/auth/account/password', {
        headers: bearer(account.accessToken),
        body: { currentPassword: GOOD_PASSWORD, newPassword: GOOD_PASSWORD },
      });
      expectProblem(res, 400, 'validation_failed');
      expect(res.json.errors[0].path).to.equal('body.newPassword');
    });
  });
});
