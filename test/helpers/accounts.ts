/**
 * Accounts for API tests: each test signs up its own merchant (a new tenant and owner with a unique
 * e-mail address) through the real registration operation, so tests never depend on each other.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { AUTH_LIMITS, limitKey } from '../../api/auth/accounts';
import { hashPassword } from '../../api/auth/passwords';
import { createApp } from '../../app/http-app';
import type { Config } from '../../lib/config';
import { LocalRateLimiter } from '../../lib/local-rate-limit';
import { RateLimiter } from '../../storage/rate-limit';
import { call, testRuntime, type TestResponse, type TestServer } from './harness';

/** A password that satisfies the password rules. */
export const GOOD_PASSWORD = 'Correct-Horse-42-Battery';

/** One password per rule, each breaking only that rule, for the account of `email`; and the message expected. */
export const RULE_BREAKERS: Array<[rule: string, passwordFor: (email: string) => string, message: RegExp]> = [
  ['too short', () => 'Short-1a', /at least 10 characters/],
  ['no digit', () => 'No-Digits-Here-At-All', /digit/],
  ['no uppercase', () => 'no-uppercase-42-here', /uppercase/],
  ['no lowercase', () => 'NO-LOWERCASE-42-HERE', /lowercase/],
  ['contains the e-mail', (email) => `Aa1-${email.split('@')[0]}`, /e-mail/],
  ['common', () => 'Password1234!', /too common/],
];

export interface SignedUp {
  email: string;
  password: string;
  userId: string;
  tenantId: string;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
}

/** A fresh e-mail address nobody has registered. */
export function uniqueEmail(label = 'user'): string {
  return `${label}-${uuidv7()}@example.test`;
}

/**
 * The whole test run comes from 127.0.0.1, so the per-address limits of registration and sign-in
 * would trip after a few tests; signUp and signIn clear those counts before and after their request
 * (the limits themselves are tested with a limiter of their own, see startIsolatedServer).
 */
async function clearClientLimits(server: TestServer): Promise<void> {
  const limiter = server.runtime.services.rateLimiter;
  for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '::1']) {
    for (const rule of ['registerPerIp', 'loginPerIp'] as Array<keyof typeof AUTH_LIMITS>) await limiter.reset(limitKey(rule, ip));
  }
}

/**
 * Registers a merchant through POST /api/v1/auth/register (which answers a token pair right away, so
 * no separate sign-in is needed) and returns its credentials.
 */
export async function signUp(
  server: TestServer,
  overrides: { email?: string; password?: string; name?: string; companyName?: string } = {},
): Promise<SignedUp> {
  const email = (overrides.email ?? uniqueEmail()).toLowerCase();
  const password = overrides.password ?? GOOD_PASSWORD;
  await clearClientLimits(server);
  const res = await call(server, 'POST', '/api/v1/auth/register', {
    body: {
      email,
      password,
      name: overrides.name ?? 'Test Owner',
      companyName: overrides.companyName ?? `Test Company ${uuidv7().slice(-8)}`,
    },
  });
  await clearClientLimits(server);
  expect(res.status, `sign-up failed: ${res.text}`).to.equal(201);
  return {
    email,
    password,
    userId: res.json.user.id,
    tenantId: res.json.tenant.id,
    accessToken: res.json.accessToken,
    refreshToken: res.json.refreshToken,
    sessionId: res.json.sessionId,
  };
}

/** Signs in through POST /api/v1/auth/login (a second session of the same account). */
export async function signIn(
  server: TestServer,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<{ accessToken: string; refreshToken: string; sessionId: string }> {
  await clearClientLimits(server);
  const res = await call(server, 'POST', '/api/v1/auth/login', { body: { email, password }, headers });
  expect(res.status, `sign-in failed: ${res.text}`).to.equal(200);
  return { accessToken: res.json.accessToken, refreshToken: res.json.refreshToken, sessionId: res.json.sessionId };
}

/** The Authorization header of an access token. */
export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

/**
 * A member with `role` added to the tenant of `owner`, signed in. It is written directly to the
 * database because there is no invite operation yet; its password is GOOD_PASSWORD.
 */
export async function addMember(
  server: TestServer,
  owner: SignedUp,
  role: 'admin' | 'staff',
): Promise<{ headers: Record<string, string>; userId: string; email: string }> {
  const email = uniqueEmail(role);
  const userId = uuidv7();
  await server.runtime.dataSource.query(
    'INSERT INTO users (id, tenant_id, tenant_role, email, password_hash, name) VALUES ($1, $2, $3, $4, $5, $6)',
    [userId, owner.tenantId, role, email, await hashPassword(GOOD_PASSWORD), `A ${role}`],
  );
  return { headers: bearer((await signIn(server, email, GOOD_PASSWORD)).accessToken), userId, email };
}

/**
 * A server on the shared test runtime with process services of its own: a rate limiter whose counts
 * no other test shares (to test limits), and optionally other account settings (e.g. closed
 * registration). Its `runtime.services` are those services.
 */
export async function startIsolatedServer(options: { auth?: Partial<Config['auth']> } = {}): Promise<TestServer> {
  const runtime = await testRuntime();
  const services = {
    ...runtime.services,
    config: { ...runtime.services.config, auth: { ...runtime.services.config.auth, ...options.auth } },
    rateLimiter: new RateLimiter(runtime.redis, runtime.logger, `${runtime.config.queuePrefix}:rl-${randomBytes(4).toString('hex')}`),
    localRateLimiter: new LocalRateLimiter(),
  };
  const app = createApp({ ...runtime, services });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    runtime: { ...runtime, services },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The latest message sent to `recipient` with `template` (the local transport records every one). */
export async function lastMessage(
  server: TestServer,
  recipient: string,
  template: string,
): Promise<{ body: string; subject: string | null } | undefined> {
  const rows = (await server.runtime.dataSource.query(
    'SELECT body, subject FROM outbound_messages WHERE recipient = $1 AND template = $2 ORDER BY id DESC LIMIT 1',
    [recipient, template],
  )) as Array<{ body: string; subject: string | null }>;
  return rows[0];
}

/** The token of the latest e-mail of `template` (verify_email, reset_password) sent to `recipient`. */
export async function emailedToken(server: TestServer, recipient: string, template: string): Promise<string> {
  const message = await lastMessage(server, recipient, template);
  expect(message, `no ${template} message to ${recipient}`).to.not.equal(undefined);
  const match = /token=([A-Za-z0-9_-]+)/.exec(message!.body);
  expect(match, message!.body).to.not.equal(null);
  return decodeURIComponent(match![1]!);
}

/** Asserts a problem+json answer with `status` and `code`. */
export function expectProblem(res: TestResponse, status: number, code: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.json).to.include({ status, code });
}

/** Audit entries of a tenant, oldest first. */
export async function auditRows(
  server: TestServer,
  tenantId: string,
): Promise<
  Array<{
    action: string;
    resource_type: string;
    resource_id: string | null;
    actor_type: string;
    actor_id: string | null;
    before: any;
    after: any;
    ip: string | null;
  }>
> {
  return server.runtime.dataSource.query('SELECT * FROM audit_log WHERE tenant_id = $1 ORDER BY id', [tenantId]);
}

/** A member of the platform staff, with the Authorization header of their session. */
export type Staff = SignedUp & { headers: Record<string, string> };

/**
 * Platform staff with `role`: a signed-up account given the platform role in the database (there is
 * no operation to grant one). The default name is unique, so lists by person tell them apart.
 */
export async function platformStaff(
  server: TestServer,
  role: 'platform_admin' | 'support_agent' | 'sales_rep',
  overrides: { name?: string } = {},
): Promise<Staff> {
  const user = await signUp(server, { name: overrides.name ?? `Staff ${role} ${uuidv7().slice(-6)}` });
  await server.runtime.dataSource.query('UPDATE users SET platform_role = $1 WHERE id = $2', [role, user.userId]);
  return { ...user, headers: bearer(user.accessToken) };
}
