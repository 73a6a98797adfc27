/**
 * Two-factor authentication (TOTP + recovery codes) end to end: setup, activate, the login
 * challenge, disable, and the attacks (wrong, replayed and brute-forced codes, reused recovery codes,
 * burnt and expired challenges, secrets at rest and in the audit log).
 *
 * TOTP codes are computed from the returned provisioning URI with otpauth. Each time step is accepted
 * once per user, and the server accepts ±1 step: a test that needs more codes than that within 30 s
 * forgets the spent step in the database (as if time had passed).
 */
import { expect } from 'chai';
import { Secret, TOTP, URI } from 'otpauth';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, bearer, expectProblem, signUp, startIsolatedServer, type SignedUp } from '../helpers/accounts';
import { TwoFactorActivateResponse, TwoFactorChallengeResponse, TwoFactorSetupResponse } from '../../api/auth/auth-second-factor.schemas';
import { LoginResponse } from '../../api/auth/auth.schemas';
import type { NamedSchema } from '../../api/http/route';

/** The code of the step `offsetSteps` away from now. */
function codeAt(totp: TOTP, offsetSteps = 0): string {
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/** A 6-digit code that matches none of the accepted steps (now ±1, plus margin). */
function wrongCode(totp: TOTP): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((offset) => codeAt(totp, offset)));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

function expectSchema(schema: NamedSchema, body: unknown): void {
  const { error } = schema.schema.validate(body, { presence: 'optional' });
  expect(error, error?.message).to.equal(undefined);
}

async function forgetSpentStep(server: TestServer, userId: string): Promise<void> {
  await server.runtime.dataSource.query('UPDATE users SET totp_last_step = NULL WHERE id = $1', [userId]);
}

interface Enabled extends SignedUp {
  totp: TOTP;
  secret: string;
  recoveryCodes: string[];
}

async function enableTwoFactor(server: TestServer): Promise<Enabled> {
  const account = await signUp(server);
  const setup = await call(server, 'POST', '/api/v1/auth/2fa/setup', { headers: bearer(account.accessToken) });
  expect(setup.status, setup.text).to.equal(200);
  const totp = URI.parse(setup.json.otpauthUri) as TOTP;
  const activate = await call(server, 'POST', '/api/v1/auth/2fa/activate', {
    headers: bearer(account.accessToken),
    body: { code: codeAt(totp) },
  });
  expect(activate.status, activate.text).to.equal(200);
  await forgetSpentStep(server, account.userId);
  return { ...account, totp, secret: setup.json.secret, recoveryCodes: activate.json.recoveryCodes };
}

async function loginChallenge(server: TestServer, account: SignedUp): Promise<string> {
  const res = await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } });
  expect(res.status, res.text).to.equal(200);
  expect(res.json.twoFactorRequired).to.equal(true);
  return res.json.challengeToken;
}

describe('two-factor authentication', () => {
  let server: TestServer;
  // A rate limiter of the file's own: its tests count attempts per client.
  apiSuite((started) => (server = started), { start: () => startIsolatedServer() });

  it('runs the whole flow: setup, activate, login challenge, recovery code once, disable', async () => {
    const account = await signUp(server);
    const auth = bearer(account.accessToken);

    const setup = await call(server, 'POST', '/api/v1/auth/2fa/setup', { headers: auth });
    expect(setup.status, setup.text).to.equal(200);
    expectSchema(TwoFactorSetupResponse, setup.json);
    expect(setup.json.secret).to.match(/^[A-Z2-7]{32}$/);
    const totp = URI.parse(setup.json.otpauthUri) as TOTP;
    expect(totp).to.be.instanceOf(TOTP);
    expect(totp.issuer).to.equal('Commerce platform');
    expect(totp.label).to.equal(account.email);
    expect(totp.algorithm).to.equal('SHA1');
    expect(totp.digits).to.equal(6);
    expect(totp.period).to.equal(30);
    expect(totp.secret.base32).to.equal(setup.json.secret);

    // Stored encrypted, and not on yet: login still answers tokens.
    const [stored] = await server.runtime.dataSource.query('SELECT totp_secret_enc, totp_enabled_at FROM users WHERE id = $1', [
      account.userId,
    ]);
    expect(stored.totp_secret_enc).to.be.a('string').and.not.include(setup.json.secret);
    expect(stored.totp_enabled_at).to.equal(null);
    const before = await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } });
    expect(before.status).to.equal(200);
    expect(before.json.accessToken).to.be.a('string');

    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/activate', { headers: auth, body: { code: wrongCode(totp) } }),
      400,
      'invalid_code',
    );

    const activationCode = codeAt(totp);
    const activate = await call(server, 'POST', '/api/v1/auth/2fa/activate', { headers: auth, body: { code: activationCode } });
    expect(activate.status, activate.text).to.equal(200);
    expectSchema(TwoFactorActivateResponse, activate.json);
    expect(activate.json.enabled).to.equal(true);
    const recoveryCodes: string[] = activate.json.recoveryCodes;
    expect(recoveryCodes).to.have.length(10);
    expect(new Set(recoveryCodes).size).to.equal(10);
    for (const code of recoveryCodes) expect(code).to.match(/^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/);
    const hashes = await server.runtime.dataSource.query(
      "SELECT token_hash FROM one_time_tokens WHERE user_id = $1 AND purpose = 'recovery_code'",
      [account.userId],
    );
    expect(hashes).to.have.length(10);
    for (const { token_hash: hash } of hashes) for (const code of recoveryCodes) expect(hash).to.not.include(code.replace(/-/g, ''));

    expectProblem(await call(server, 'POST', '/api/v1/auth/2fa/setup', { headers: auth }), 409, 'two_factor_already_enabled');
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/activate', { headers: auth, body: { code: codeAt(totp, 1) } }),
      409,
      'two_factor_already_enabled',
    );

    // Login now answers a challenge and no tokens.
    const login = await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } });
    expect(login.status, login.text).to.equal(200);
    expectSchema(LoginResponse, login.json);
    expect(login.json).to.have.keys(['twoFactorRequired', 'challengeToken', 'expiresIn']);
    expect(login.json.twoFactorRequired).to.equal(true);
    expect(login.json.expiresIn).to.equal(300);
    const challengeToken: string = login.json.challengeToken;

    // The activation code's step is spent: the same code cannot sign in (replay).
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code: activationCode } }),
      401,
      'invalid_code',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code: wrongCode(totp) } }),
      401,
      'invalid_code',
    );

    const next = codeAt(totp, 1);
    const signedIn = await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code: next } });
    expect(signedIn.status, signedIn.text).to.equal(200);
    expectSchema(TwoFactorChallengeResponse, signedIn.json);
    expect(signedIn.json.user).to.include({ id: account.userId, email: account.email, twoFactorEnabled: true });
    const accountRes = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(signedIn.json.accessToken) });
    expect(accountRes.status, accountRes.text).to.equal(200);
    expect(accountRes.json).to.include({ id: account.userId, twoFactorEnabled: true });
    const sessions = await call(server, 'GET', '/api/v1/auth/sessions', { headers: bearer(signedIn.json.accessToken) });
    const current = sessions.json.items.find((s: { current: boolean }) => s.current);
    expect(current).to.include({ id: signedIn.json.sessionId, method: 'two_factor' });

    // The challenge is single use.
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code: codeAt(totp, 1) } }),
      401,
      'challenge_expired',
    );

    // A recovery code works once (any case, without hyphens too).
    const recovery = recoveryCodes[3]!;
    const second = await loginChallenge(server, account);
    const viaRecovery = await call(server, 'POST', '/api/v1/auth/2fa/challenge', {
      body: { challengeToken: second, recoveryCode: recovery.replace(/-/g, '').toUpperCase() },
    });
    expect(viaRecovery.status, viaRecovery.text).to.equal(200);
    expect(viaRecovery.json.accessToken).to.be.a('string');
    const third = await loginChallenge(server, account);
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: third, recoveryCode: recovery } }),
      401,
      'invalid_code',
    );

    // Disable: a wrong code is refused, a recovery code works; afterwards login answers tokens again.
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/disable', { headers: auth, body: { code: wrongCode(totp) } }),
      400,
      'invalid_code',
    );
    expectProblem(await call(server, 'POST', '/api/v1/auth/2fa/disable', { headers: auth, body: { code: recovery } }), 400, 'invalid_code');
    const disable = await call(server, 'POST', '/api/v1/auth/2fa/disable', { headers: auth, body: { code: recoveryCodes[0] } });
    expect(disable.status, disable.text).to.equal(200);
    expect(disable.json).to.deep.equal({ enabled: false });
    const [after] = await server.runtime.dataSource.query('SELECT totp_secret_enc, totp_enabled_at FROM users WHERE id = $1', [
      account.userId,
    ]);
    expect(after).to.deep.equal({ totp_secret_enc: null, totp_enabled_at: null });
    const leftovers = await server.runtime.dataSource.query(
      "SELECT purpose FROM one_time_tokens WHERE user_id = $1 AND purpose IN ('recovery_code', 'two_factor_challenge')",
      [account.userId],
    );
    expect(leftovers).to.deep.equal([]);
    // The open challenge of before is gone with it.
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: third, recoveryCode: recoveryCodes[5] } }),
      401,
      'challenge_expired',
    );
    const plain = await call(server, 'POST', '/api/v1/auth/login', { body: { email: account.email, password: account.password } });
    expect(plain.status).to.equal(200);
    expect(plain.json.accessToken).to.be.a('string');
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/disable', { headers: auth, body: { code: codeAt(totp, 1) } }),
      409,
      'two_factor_not_enabled',
    );

    // Every change is audited, without secrets.
    const audit = await auditRows(server, account.tenantId);
    const actions = audit.map((row) => row.action);
    for (const action of [
      'user.two_factor_setup',
      'user.two_factor_enable',
      'user.two_factor_challenge',
      'user.two_factor_challenge_fail',
      'user.recovery_code_use',
      'user.two_factor_disable',
    ]) {
      expect(actions, action).to.include(action);
    }
    expect(audit.filter((row) => row.action === 'session.create').map((row) => row.after.method)).to.include('two_factor');
    const enable = audit.find((row) => row.action === 'user.two_factor_enable')!;
    expect(enable).to.include({ resource_type: 'user', resource_id: account.userId, actor_type: 'user', actor_id: account.userId });
    expect(enable.after).to.include({ twoFactorEnabled: true });
    const dump = JSON.stringify(audit);
    expect(dump).to.not.include(setup.json.secret);
    expect(dump).to.not.include(challengeToken);
    for (const code of recoveryCodes) expect(dump).to.not.include(code);
  });

  it('replaces a pending secret on a second setup, and needs setup before activate', async () => {
    const account = await signUp(server);
    const auth = bearer(account.accessToken);
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/activate', { headers: auth, body: { code: '123456' } }),
      409,
      'two_factor_not_set_up',
    );
    const first = await call(server, 'POST', '/api/v1/auth/2fa/setup', { headers: auth });
    const second = await call(server, 'POST', '/api/v1/auth/2fa/setup', { headers: auth });
    expect(second.status).to.equal(200);
    expect(second.json.secret).to.not.equal(first.json.secret);
    const oldTotp = new TOTP({ secret: Secret.fromBase32(first.json.secret) });
    const newTotp = new TOTP({ secret: Secret.fromBase32(second.json.secret) });
    if (codeAt(oldTotp) !== codeAt(newTotp)) {
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/2fa/activate', { headers: auth, body: { code: codeAt(oldTotp) } }),
        400,
        'invalid_code',
      );
    }
    const ok = await call(server, 'POST', '/api/v1/auth/2fa/activate', { headers: auth, body: { code: codeAt(newTotp) } });
    expect(ok.status, ok.text).to.equal(200);
  });

  it('burns a challenge after 5 wrong codes', async () => {
    const account = await enableTwoFactor(server);
    const challengeToken = await loginChallenge(server, account);
    for (let i = 0; i < 5; i += 1) {
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code: wrongCode(account.totp) } }),
        401,
        'invalid_code',
      );
    }
    // Even the right code is refused now.
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code: codeAt(account.totp) } }),
      401,
      'challenge_expired',
    );
    // A new sign-in gets a new challenge that works.
    const fresh = await loginChallenge(server, account);
    const ok = await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: fresh, code: codeAt(account.totp) } });
    expect(ok.status, ok.text).to.equal(200);
    const fails = (await auditRows(server, account.tenantId)).filter((row) => row.action === 'user.two_factor_challenge_fail');
    expect(fails).to.have.length(5);
    expect(fails[4]!.after).to.include({ attempts: 5, burnt: true });
  });

  it('refuses expired, unknown and malformed challenges', async () => {
    const account = await enableTwoFactor(server);
    const challengeToken = await loginChallenge(server, account);
    await server.runtime.dataSource.query(
      "UPDATE one_time_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND purpose = 'two_factor_challenge'",
      [account.userId],
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code: codeAt(account.totp) } }),
      401,
      'challenge_expired',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: `tfc_${'x'.repeat(43)}`, code: '123456' } }),
      401,
      'challenge_expired',
    );

    const live = await loginChallenge(server, account);
    expectProblem(await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: live } }), 400, 'validation_failed');
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', {
        body: { challengeToken: live, code: codeAt(account.totp), recoveryCode: account.recoveryCodes[0] },
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: live, code: '12345' } }),
      400,
      'validation_failed',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: live, code: codeAt(account.totp), extra: 1 } }),
      400,
      'validation_failed',
    );
    // None of these counted as an attempt: the right code still works.
    const ok = await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: live, code: codeAt(account.totp) } });
    expect(ok.status, ok.text).to.equal(200);
  });

  it('lets only one of two concurrent sign-ins spend the same code', async () => {
    const account = await enableTwoFactor(server);
    const [a, b] = [await loginChallenge(server, account), await loginChallenge(server, account)];
    const code = codeAt(account.totp);
    const results = await Promise.all(
      [a, b].map((challengeToken) => call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code } })),
    );
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 401]);
  });

  it('keeps another user from completing a challenge with their own codes', async () => {
    const victim = await enableTwoFactor(server);
    const attacker = await enableTwoFactor(server);
    const challengeToken = await loginChallenge(server, victim);
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, recoveryCode: attacker.recoveryCodes[0] } }),
      401,
      'invalid_code',
    );
    if (codeAt(attacker.totp) !== codeAt(victim.totp)) {
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken, code: codeAt(attacker.totp) } }),
        401,
        'invalid_code',
      );
    }
    // The attacker's recovery code was not spent by that attempt.
    const own = await loginChallenge(server, attacker);
    expect(
      (await call(server, 'POST', '/api/v1/auth/2fa/challenge', { body: { challengeToken: own, recoveryCode: attacker.recoveryCodes[0] } }))
        .status,
    ).to.equal(200);
  });

  it('disables with a current authenticator code', async () => {
    const account = await enableTwoFactor(server);
    const res = await call(server, 'POST', '/api/v1/auth/2fa/disable', {
      headers: bearer(account.accessToken),
      body: { code: codeAt(account.totp) },
    });
    expect(res.status, res.text).to.equal(200);
    const disable = (await auditRows(server, account.tenantId)).find((row) => row.action === 'user.two_factor_disable')!;
    expect(disable.before).to.include({ twoFactorEnabled: true });
    expect(disable.after).to.include({ twoFactorEnabled: false, confirmedWith: 'totp' });
  });

  it('needs a signed-in user for setup, activate and disable', async () => {
    expectProblem(await call(server, 'POST', '/api/v1/auth/2fa/setup'), 401, 'unauthorized');
    expectProblem(await call(server, 'POST', '/api/v1/auth/2fa/activate', { body: { code: '123456' } }), 401, 'unauthorized');
    expectProblem(await call(server, 'POST', '/api/v1/auth/2fa/disable', { body: { code: '123456' } }), 401, 'unauthorized');
    expectProblem(await call(server, 'POST', '/api/v1/auth/2fa/setup', { headers: bearer('not-a-token') }), 401, 'invalid_token');
  });

  it('limits code guesses on activate and disable per user (429 with Retry-After)', async () => {
    const limited = await startIsolatedServer();
    try {
      const account = await signUp(limited);
      const auth = bearer(account.accessToken);
      const setup = await call(limited, 'POST', '/api/v1/auth/2fa/setup', { headers: auth });
      const totp = URI.parse(setup.json.otpauthUri) as TOTP;
      for (let i = 0; i < 10; i += 1) {
        expectProblem(
          await call(limited, 'POST', '/api/v1/auth/2fa/activate', { headers: auth, body: { code: wrongCode(totp) } }),
          400,
          'invalid_code',
        );
      }
      const blocked = await call(limited, 'POST', '/api/v1/auth/2fa/activate', { headers: auth, body: { code: codeAt(totp) } });
      expectProblem(blocked, 429, 'rate_limited');
      expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 900);
    } finally {
      await limited.close();
    }
  });

  it('limits challenge attempts per client address', async () => {
    const limited = await startIsolatedServer();
    try {
      for (let i = 0; i < 60; i += 1) {
        expect(
          (
            await call(limited, 'POST', '/api/v1/auth/2fa/challenge', {
              body: { challengeToken: `tfc_unknown_${i}_${'x'.repeat(20)}`, code: '000000' },
            })
          ).status,
        ).to.equal(401);
      }
      const blocked = await call(limited, 'POST', '/api/v1/auth/2fa/challenge', {
        body: { challengeToken: `tfc_unknown_${'x'.repeat(20)}`, code: '000000' },
      });
      expectProblem(blocked, 429, 'rate_limited');
      expect(blocked.headers.get('retry-after')).to.match(/^\d+$/);
    } finally {
      await limited.close();
    }
  });
});
