/**
 * The command line device flow (RFC 8628): device authorization, every polling answer
 * (authorization_pending, slow_down, access_denied, expired_token, invalid_grant, success),
 * single use of the device code, approval and denial by user code, rate limits.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, bearer, expectProblem, signUp, startIsolatedServer } from '../helpers/accounts';
import { sleep } from '../helpers/wait';
import { CliDeviceResponse, CliTokenResponse } from '../../api/auth/auth-second-factor.schemas';
import type { NamedSchema } from '../../api/http/route';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

function expectSchema(schema: NamedSchema, body: unknown): void {
  const { error } = schema.schema.validate(body);
  expect(error, error?.message).to.equal(undefined);
}

async function requestCode(
  server: TestServer,
  body: Record<string, unknown> = { clientName: 'commerce-cli on test' },
): Promise<{ deviceCode: string; userCode: string; interval: number; expiresIn: number }> {
  const res = await call(server, 'POST', '/api/v1/auth/cli/device', { body });
  expect(res.status, res.text).to.equal(200);
  return res.json;
}

function poll(server: TestServer, deviceCode: string, grantType?: string): Promise<TestResponse> {
  return call(server, 'POST', '/api/v1/auth/cli/token', { body: grantType === undefined ? { deviceCode } : { deviceCode, grantType } });
}

/** Pretends the last poll was long enough ago, so the next one is not "too fast". */
async function waitedInterval(server: TestServer, deviceCode: string): Promise<void> {
  await server.runtime.dataSource.query(
    "UPDATE device_codes SET last_polled_at = now() - interval '1 hour' WHERE device_code_hash = encode(sha256($1::bytea), 'hex')",
    [deviceCode],
  );
}

async function row(
  server: TestServer,
  deviceCode: string,
): Promise<{ status: string; interval_seconds: number; user_id: string | null; scopes: string[] }> {
  const [found] = await server.runtime.dataSource.query(
    "SELECT status, interval_seconds, user_id, scopes FROM device_codes WHERE device_code_hash = encode(sha256($1::bytea), 'hex')",
    [deviceCode],
  );
  return found;
}

describe('command line device flow (RFC 8628)', () => {
  let server: TestServer;
  // A rate limiter of the file's own: its tests count attempts per client.
  apiSuite((started) => (server = started), { start: () => startIsolatedServer() });

  it('issues a device code, user code and verification URIs', async () => {
    const res = await call(server, 'POST', '/api/v1/auth/cli/device', {
      body: { clientName: 'commerce-cli', scopes: ['products:read', 'orders:write'] },
    });
    expect(res.status, res.text).to.equal(200);
    expectSchema(CliDeviceResponse, res.json);
    const { config } = server.runtime.services;
    expect(res.json.userCode).to.match(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(res.json.verificationUri).to.equal(`${config.publicBaseUrl}/device`);
    expect(res.json.verificationUriComplete).to.equal(`${config.publicBaseUrl}/device?user_code=${res.json.userCode}`);
    expect(res.json.expiresIn).to.equal(config.auth.deviceCodeTtlSeconds);
    expect(res.json.interval).to.equal(config.auth.deviceCodeIntervalSeconds);
    expect(res.json.deviceCode).to.be.a('string').with.length.above(40);
    // Only a hash of the device code is stored.
    const stored = await row(server, res.json.deviceCode);
    expect(stored).to.include({ status: 'pending' });
    expect(stored.scopes).to.deep.equal(['products:read', 'orders:write']);
    const raw = await server.runtime.dataSource.query('SELECT 1 FROM device_codes WHERE device_code_hash = $1', [res.json.deviceCode]);
    expect(raw).to.deep.equal([]);
  });

  it('answers every polling state: pending, slow_down, success, then the code is consumed', async () => {
    const account = await signUp(server);
    const { deviceCode, userCode, interval } = await requestCode(server);

    const pending = await poll(server, deviceCode, GRANT);
    expectProblem(pending, 400, 'authorization_pending');
    // Polling again at once is too fast: slow_down, and the interval grows by 5 seconds.
    expectProblem(await poll(server, deviceCode), 400, 'slow_down');
    expect((await row(server, deviceCode)).interval_seconds).to.equal(interval + 5);
    await waitedInterval(server, deviceCode);
    expectProblem(await poll(server, deviceCode), 400, 'authorization_pending');

    // Case and the hyphen do not matter.
    const approve = await call(server, 'POST', '/api/v1/auth/cli/approve', {
      headers: bearer(account.accessToken),
      body: { userCode: userCode.replace('-', '').toLowerCase() },
    });
    expect(approve.status, approve.text).to.equal(200);
    expect(approve.json).to.deep.equal({ approved: true });
    expect(await row(server, deviceCode)).to.include({ status: 'approved', user_id: account.userId });

    const tokens = await poll(server, deviceCode);
    expect(tokens.status, tokens.text).to.equal(200);
    expectSchema(CliTokenResponse, tokens.json);
    expect(tokens.json.user).to.include({ id: account.userId });
    const me = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(tokens.json.accessToken) });
    expect(me.status, me.text).to.equal(200);
    expect(me.json.id).to.equal(account.userId);
    const sessions = await call(server, 'GET', '/api/v1/auth/sessions', { headers: bearer(tokens.json.accessToken) });
    expect(sessions.json.items.find((s: { current: boolean }) => s.current)).to.include({
      id: tokens.json.sessionId,
      method: 'device_flow',
    });

    // Single use: the code is consumed.
    expect((await row(server, deviceCode)).status).to.equal('consumed');
    await waitedInterval(server, deviceCode);
    expectProblem(await poll(server, deviceCode), 400, 'invalid_grant');
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/cli/approve', { headers: bearer(account.accessToken), body: { userCode } }),
      404,
      'device_code_not_found',
    );

    const audit = await auditRows(server, account.tenantId);
    const approved = audit.find((r) => r.action === 'device_code.approve')!;
    expect(approved).to.include({ resource_type: 'device_code', actor_type: 'user', actor_id: account.userId });
    expect(approved.after).to.include({ status: 'approved', clientName: 'commerce-cli on test' });
    expect(audit.map((r) => r.action)).to.include('device_code.consume');
    expect(audit.filter((r) => r.action === 'session.create').map((r) => r.after.method)).to.include('device_flow');
    expect(JSON.stringify(audit)).to.not.include(deviceCode);
  });

  it('answers access_denied after a denial', async () => {
    const account = await signUp(server);
    const { deviceCode, userCode } = await requestCode(server);
    const deny = await call(server, 'POST', '/api/v1/auth/cli/deny', { headers: bearer(account.accessToken), body: { userCode } });
    expect(deny.status, deny.text).to.equal(200);
    expect(deny.json).to.deep.equal({ denied: true });
    expectProblem(await poll(server, deviceCode), 400, 'access_denied');
    expectProblem(await poll(server, deviceCode), 400, 'access_denied');
    // A denied code cannot be approved afterwards.
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/cli/approve', { headers: bearer(account.accessToken), body: { userCode } }),
      404,
      'device_code_not_found',
    );
    expect((await auditRows(server, account.tenantId)).map((r) => r.action)).to.include('device_code.deny');
  });

  it('answers expired_token once the code has expired, and refuses to approve it', async () => {
    const account = await signUp(server);
    const { deviceCode, userCode } = await requestCode(server);
    await server.runtime.dataSource.query(
      "UPDATE device_codes SET expires_at = now() - interval '1 second' WHERE device_code_hash = encode(sha256($1::bytea), 'hex')",
      [deviceCode],
    );
    expectProblem(await poll(server, deviceCode), 400, 'expired_token');
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/cli/approve', { headers: bearer(account.accessToken), body: { userCode } }),
      404,
      'device_code_not_found',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/cli/deny', { headers: bearer(account.accessToken), body: { userCode } }),
      404,
      'device_code_not_found',
    );
  });

  it('does not issue tokens for an approved code that expired before the poll', async () => {
    const account = await signUp(server);
    const { deviceCode, userCode } = await requestCode(server);
    expect(
      (await call(server, 'POST', '/api/v1/auth/cli/approve', { headers: bearer(account.accessToken), body: { userCode } })).status,
    ).to.equal(200);
    await server.runtime.dataSource.query(
      "UPDATE device_codes SET expires_at = now() - interval '1 second' WHERE device_code_hash = encode(sha256($1::bytea), 'hex')",
      [deviceCode],
    );
    expectProblem(await poll(server, deviceCode), 400, 'expired_token');
  });

  it("lets any signed-in user approve for themselves: the tokens are the approver's", async () => {
    const first = await signUp(server);
    const second = await signUp(server);
    const { deviceCode, userCode } = await requestCode(server);
    expect(
      (await call(server, 'POST', '/api/v1/auth/cli/approve', { headers: bearer(second.accessToken), body: { userCode } })).status,
    ).to.equal(200);
    const tokens = await poll(server, deviceCode);
    expect(tokens.status, tokens.text).to.equal(200);
    const me = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(tokens.json.accessToken) });
    expect(me.json.id).to.equal(second.userId);
    expect(me.json.id).to.not.equal(first.userId);
    // The audit entry belongs to the approver's tenant, not the other one.
    expect((await auditRows(server, second.tenantId)).map((r) => r.action)).to.include('device_code.approve');
    expect((await auditRows(server, first.tenantId)).map((r) => r.action)).to.not.include('device_code.approve');
  });

  it('answers invalid_grant for an unknown device code and unsupported_grant_type for another grant', async () => {
    expectProblem(await poll(server, `dc_${'a'.repeat(43)}`), 400, 'invalid_grant');
    const { deviceCode } = await requestCode(server);
    expectProblem(await poll(server, deviceCode, 'authorization_code'), 400, 'unsupported_grant_type');
    expectProblem(await call(server, 'POST', '/api/v1/auth/cli/token', { body: {} }), 400, 'validation_failed');
  });

  it('answers 404 for an unknown user code and validates it', async () => {
    const account = await signUp(server);
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/cli/approve', { headers: bearer(account.accessToken), body: { userCode: 'BCDF-GHJK' } }),
      404,
      'device_code_not_found',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/auth/cli/deny', { headers: bearer(account.accessToken), body: { userCode: 'ZZZZZZZZ' } }),
      404,
      'device_code_not_found',
    );
    for (const userCode of ['BCD-FGHJ', 'BCDF-GHJK-L', '1234-5678', '']) {
      expectProblem(
        await call(server, 'POST', '/api/v1/auth/cli/approve', { headers: bearer(account.accessToken), body: { userCode } }),
        400,
        'validation_failed',
      );
    }
  });

  it('needs a signed-in user to approve or deny', async () => {
    const { userCode } = await requestCode(server);
    expectProblem(await call(server, 'POST', '/api/v1/auth/cli/approve', { body: { userCode } }), 401, 'unauthorized');
    expectProblem(await call(server, 'POST', '/api/v1/auth/cli/deny', { body: { userCode } }), 401, 'unauthorized');
  });

  it('validates the device request', async () => {
    for (const body of [
      {},
      { clientName: '' },
      { clientName: 'x'.repeat(101) },
      { clientName: 'cli', scopes: 'products:read' },
      { clientName: 'cli', scopes: ['Bad Scope!'] },
      { clientName: 'cli', other: 1 },
    ]) {
      expectProblem(await call(server, 'POST', '/api/v1/auth/cli/device', { body }), 400, 'validation_failed');
    }
  });

  it('honours the configured interval and lifetime; a poll after the interval is not slow_down', async () => {
    const quick = await startIsolatedServer({ auth: { deviceCodeIntervalSeconds: 1, deviceCodeTtlSeconds: 60 } });
    try {
      const { deviceCode, interval, expiresIn } = await requestCode(quick);
      expect({ interval, expiresIn }).to.deep.equal({ interval: 1, expiresIn: 60 });
      expectProblem(await poll(quick, deviceCode), 400, 'authorization_pending');
      await sleep(1_100); // past the 1 s interval: the next poll is not too fast
      expectProblem(await poll(quick, deviceCode), 400, 'authorization_pending');
    } finally {
      await quick.close();
    }
  });

  it('rate-limits polling per device code (429 with Retry-After)', async () => {
    const limited = await startIsolatedServer();
    try {
      const { deviceCode } = await requestCode(limited);
      const other = await requestCode(limited);
      for (let i = 0; i < 30; i += 1) expect((await poll(limited, deviceCode)).status).to.equal(400);
      const blocked = await poll(limited, deviceCode);
      expectProblem(blocked, 429, 'rate_limited');
      expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 60);
      // Another device code is not affected.
      expectProblem(await poll(limited, other.deviceCode), 400, 'authorization_pending');
    } finally {
      await limited.close();
    }
  });

  it('rate-limits approvals per user, so user codes cannot be guessed', async () => {
    const limited = await startIsolatedServer();
    try {
      const account = await signUp(limited);
      for (let i = 0; i < 20; i += 1) {
        expect(
          (
            await call(limited, 'POST', '/api/v1/auth/cli/approve', {
              headers: bearer(account.accessToken),
              body: { userCode: 'BCDF-GHJK' },
            })
          ).status,
        ).to.equal(404);
      }
      expectProblem(
        await call(limited, 'POST', '/api/v1/auth/cli/approve', { headers: bearer(account.accessToken), body: { userCode: 'BCDF-GHJK' } }),
        429,
        'rate_limited',
      );
    } finally {
      await limited.close();
    }
  });
});
