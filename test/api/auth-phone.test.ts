/**
 * Phone verification by SMS one-time password: send (202, the SMS recorded by the local transport),
 * verify, and the attacks: wrong codes (5 attempts, then the code is dead), expiry, replaced and used
 * codes, another user's code, resend throttles (429 with Retry-After), codes at rest.
 */
import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, bearer, expectProblem, lastMessage, signUp, startIsolatedServer, type SignedUp } from '../helpers/accounts';

/** A fresh E.164 number per test (the per-number hourly limit would otherwise be shared). */
function uniquePhone(): string {
  return `+4915${String(randomInt(0, 1e9)).padStart(9, '0')}`;
}

async function smsCode(server: TestServer, phone: string): Promise<string> {
  const message = await lastMessage(server, phone, 'phone_otp');
  expect(message, `no SMS to ${phone}`).to.not.equal(undefined);
  const match = /\b(\d{6})\b/.exec(message!.body);
  expect(match, message!.body).to.not.equal(null);
  return match![1]!;
}

function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

async function send(server: TestServer, account: SignedUp, phone: string) {
  return call(server, 'POST', '/api/v1/auth/phone/send-otp', { headers: bearer(account.accessToken), body: { phone } });
}

async function verify(server: TestServer, account: SignedUp, phone: string, code: string) {
  return call(server, 'POST', '/api/v1/auth/phone/verify-otp', { headers: bearer(account.accessToken), body: { phone, code } });
}

/** Moves the user's codes back in time so the per-minute resend throttle is behind them. */
async function age(server: TestServer, userId: string, seconds: number): Promise<void> {
  await server.runtime.dataSource.query(`UPDATE phone_otps SET created_at = created_at - make_interval(secs => $2) WHERE user_id = $1`, [
    userId,
    seconds,
  ]);
}

describe('phone one-time passwords', () => {
  let server: TestServer;
  // A rate limiter of the file's own: its tests count attempts per client.
  apiSuite((started) => (server = started), { start: () => startIsolatedServer() });

  it('sends a code by SMS and verifies the number with it', async () => {
    const account = await signUp(server);
    const phone = uniquePhone();
    const sent = await send(server, account, phone);
    expect(sent.status, sent.text).to.equal(202);
    expect(sent.json).to.deep.equal({ expiresIn: 300 });

    const [message] = await server.runtime.dataSource.query(
      "SELECT channel, recipient, tenant_id FROM outbound_messages WHERE recipient = $1 AND template = 'phone_otp'",
      [phone],
    );
    expect(message).to.deep.equal({ channel: 'sms', recipient: phone, tenant_id: account.tenantId });
    const code = await smsCode(server, phone);

    // Stored hashed, valid 5 minutes.
    const [row] = await server.runtime.dataSource.query(
      'SELECT code_hash, attempts, extract(epoch FROM expires_at - created_at) AS ttl FROM phone_otps WHERE user_id = $1',
      [account.userId],
    );
    expect(row.code_hash)
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.include(code);
    expect(Number(row.ttl)).to.equal(300);

    expectProblem(await verify(server, account, phone, otherCode(code)), 400, 'invalid_code');
    const ok = await verify(server, account, phone, code);
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.json).to.deep.equal({ phone, verified: true });
    const account1 = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(account.accessToken) });
    expect(account1.json).to.include({ phone, phoneVerified: true });
    const [user] = await server.runtime.dataSource.query('SELECT phone, phone_verified_at FROM users WHERE id = $1', [account.userId]);
    expect(user.phone).to.equal(phone);
    expect(user.phone_verified_at).to.be.instanceOf(Date);

    // Single use.
    expectProblem(await verify(server, account, phone, code), 400, 'code_expired');

    const audit = await auditRows(server, account.tenantId);
    const verified = audit.find((r) => r.action === 'user.phone_verify')!;
    expect(verified).to.include({ resource_type: 'user', resource_id: account.userId, actor_type: 'user', actor_id: account.userId });
    expect(verified.before).to.include({ phone: null, phoneVerifiedAt: null });
    expect(verified.after).to.include({ phone });
    expect(audit.map((r) => r.action)).to.include.members(['user.phone_otp_send', 'user.phone_verify_fail']);
    expect(JSON.stringify(audit)).to.not.include(code);
  });

  it('kills a code after 5 wrong attempts', async () => {
    const account = await signUp(server);
    const phone = uniquePhone();
    expect((await send(server, account, phone)).status).to.equal(202);
    const code = await smsCode(server, phone);
    for (let i = 0; i < 5; i += 1)
      expectProblem(await verify(server, account, phone, otherCode(String(Number(code) + i))), 400, 'invalid_code');
    expectProblem(await verify(server, account, phone, code), 400, 'code_expired');
    const [user] = await server.runtime.dataSource.query('SELECT phone_verified_at FROM users WHERE id = $1', [account.userId]);
    expect(user.phone_verified_at).to.equal(null);
  });

  it('refuses an expired code', async () => {
    const account = await signUp(server);
    const phone = uniquePhone();
    await send(server, account, phone);
    const code = await smsCode(server, phone);
    await server.runtime.dataSource.query("UPDATE phone_otps SET expires_at = now() - interval '1 second' WHERE user_id = $1", [
      account.userId,
    ]);
    expectProblem(await verify(server, account, phone, code), 400, 'code_expired');
  });

  it('refuses a code for another number or of another user', async () => {
    const owner = await signUp(server);
    const other = await signUp(server);
    const phone = uniquePhone();
    await send(server, owner, phone);
    const code = await smsCode(server, phone);
    expectProblem(await verify(server, owner, uniquePhone(), code), 400, 'code_expired');
    expectProblem(await verify(server, other, phone, code), 400, 'code_expired');
    expect((await verify(server, owner, phone, code)).status).to.equal(200);
  });

  it('throttles resends: one a minute (429 with Retry-After), and a new code replaces the old one', async () => {
    const account = await signUp(server);
    const phone = uniquePhone();
    expect((await send(server, account, phone)).status).to.equal(202);
    const first = await smsCode(server, phone);
    const again = await send(server, account, phone);
    expectProblem(again, 429, 'rate_limited');
    expect(Number(again.headers.get('retry-after'))).to.be.within(55, 60);
    // Another number does not get around it.
    expectProblem(await send(server, account, uniquePhone()), 429, 'rate_limited');

    await age(server, account.userId, 61);
    expect((await send(server, account, phone)).status).to.equal(202);
    const second = await smsCode(server, phone);
    if (second !== first) expectProblem(await verify(server, account, phone, first), 400, 'invalid_code');
    expect((await verify(server, account, phone, second)).status).to.equal(200);
  });

  it('allows at most 5 codes an hour per user', async () => {
    const account = await signUp(server);
    const phone = uniquePhone();
    for (let i = 0; i < 5; i += 1) {
      expect((await send(server, account, phone)).status).to.equal(202);
      await age(server, account.userId, 61);
    }
    const blocked = await send(server, account, phone);
    expectProblem(blocked, 429, 'rate_limited');
    // The oldest code is 5 × 61 s old, so the hour frees up in about 55 minutes.
    expect(Number(blocked.headers.get('retry-after'))).to.be.within(3000, 3600);
  });

  it('allows at most 10 codes an hour to one number, whoever asks', async () => {
    const phone = uniquePhone();
    const others = await signUp(server);
    // Ten codes to the number in the last hour, by another account (written directly: the per-user limit would stop one account at 5).
    await server.runtime.dataSource.query(
      `INSERT INTO phone_otps (id, user_id, phone, code_hash, expires_at, created_at)
       SELECT gen_random_uuid(), $1, $2, 'x', now(), now() - make_interval(mins => n) FROM generate_series(1, 10) AS n`,
      [others.userId, phone],
    );
    const account = await signUp(server);
    expectProblem(await send(server, account, phone), 429, 'rate_limited');
    expect((await send(server, account, uniquePhone())).status).to.equal(202);
  });

  it('validates the number and the code, and needs a signed-in user', async () => {
    const account = await signUp(server);
    for (const phone of ['05551234567', '+0551234567', '+12345', '+1234567890123456', '+90 555 123 4567']) {
      expectProblem(await send(server, account, phone), 400, 'validation_failed');
    }
    expectProblem(await verify(server, account, '+905551234567', '12345'), 400, 'validation_failed');
    expectProblem(await verify(server, account, '+905551234567', 'abcdef'), 400, 'validation_failed');
    expectProblem(await call(server, 'POST', '/api/v1/auth/phone/send-otp', { body: { phone: '+905551234567' } }), 401, 'unauthorized');
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/phone/verify-otp', { body: { phone: '+905551234567', code: '123456' } }),
      401,
      'unauthorized',
    );
  });
});
