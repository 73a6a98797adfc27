/**
 * The command line device flow (RFC 8628). The command line tool asks for a device code and a user
 * code; a person signed in on the web types the user code and approves (or denies); the tool polls
 * with the device code and, once approved, receives a token pair for the approving user's new
 * session (method `device_flow`).
 *
 * - The device code (256 bits) is stored as a SHA-256 hash; the user code is short, typed by a
 *   person, and stored in clear while it lives (8 letters from a 20-consonant alphabet, ~34.6 bits:
 *   no vowels, so no words, and no look-alikes). Guessing it needs a signed-in account and is
 *   limited per user; a code lives DEVICE_CODE_TTL_SECONDS (default 900 seconds).
 * - Polling answers the RFC's errors as problem+json with `code` set to the RFC error name:
 *   `authorization_pending`, `slow_down` (faster than the interval: the stored interval grows by
 *   5 seconds, RFC 8628 section 3.5), `access_denied`, `expired_token`, and `invalid_grant` for an
 *   unknown device code or one whose tokens were already issued (it is consumed, single use).
 * - Scopes asked for are recorded and shown in the audit log; the session issued is the approving
 *   user's ordinary session (sessions carry no scopes yet).
 */
import { randomInt } from 'node:crypto';
import type { RateLimitRule } from '../../storage/rate-limit';
import { DeviceCode, User } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { openSession, type TokenPair } from './sessions';
import { randomToken, sha256 } from './secrets';
import { actingAs, clientIp, userSummary, type UserSummary } from './accounts';
import { commitThenThrow } from './two-factor.service';
import { authError } from './auth.errors';

export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
/** Consonants without look-alikes (RFC 8628 section 6.1 suggests such an alphabet). */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
const SLOW_DOWN_STEP_SECONDS = 5;

export const DEVICE_FLOW_LIMITS = {
  /** New device codes per client address. */
  requestPerIp: { limit: 60, windowSeconds: 900 },
  /** Token polls per device code (a client honouring the interval polls far less). */
  pollPerDeviceCode: { limit: 30, windowSeconds: 60 },
  /** Approvals and denials per user: typing user codes, not guessing them. */
  decidePerUser: { limit: 20, windowSeconds: 600 },
} as const satisfies Record<string, RateLimitRule>;

function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i += 1) code += USER_CODE_ALPHABET[randomInt(0, USER_CODE_ALPHABET.length)];
  return code;
}

/** XXXXXXXX → XXXX-XXXX, as shown to people. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** Accepts any case, with or without the hyphen and spaces. */
export function normaliseUserCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
}

function isUserCodeCollision(error: unknown): boolean {
  return isUniqueViolation(error, 'device_codes_user_code');
}

/** Starts a device authorization (RFC 8628 section 3.2). */
export async function requestDeviceCode(
  ctx: RequestContext,
  input: { clientName: string; scopes?: string[] },
): Promise<DeviceAuthorization> {
  const { config, rateLimiter } = servicesOf(ctx);
  await rateLimiter.hit(`device:request:${clientIp(ctx)}`, DEVICE_FLOW_LIMITS.requestPerIp);
  const ttl = config.auth.deviceCodeTtlSeconds;
  const interval = config.auth.deviceCodeIntervalSeconds;
  const scopes = [...new Set(input.scopes ?? [])];
  const deviceCode = `dc_${randomToken(32)}`;
  for (let attempt = 1; ; attempt += 1) {
    const userCode = newUserCode();
    try {
      await inTransaction(ctx, async (tx) => {
        const id = uuidv7();
        const expiresAt = new Date(Date.now() + ttl * 1000);
        await tx.manager.insert(DeviceCode, {
          id,
          deviceCodeHash: sha256(deviceCode),
          userCode,
          clientName: input.clientName,
          scopes,
          status: 'pending',
          intervalSeconds: interval,
          expiresAt,
        });
        await recordAudit(tx, {
          action: 'device_code.create',
          resourceType: 'device_code',
          resourceId: id,
          tenantId: null,
          after: { clientName: input.clientName, scopes, expiresAt },
        });
      });
    } catch (error) {
      // A pending user code is unique; on the rare collision draw another.
      if (isUserCodeCollision(error) && attempt < 5) continue;
      throw error;
    }
    const base = config.publicBaseUrl.replace(/\/+$/, '');
    const shown = displayUserCode(userCode);
    return {
      deviceCode,
      userCode: shown,
      verificationUri: `${base}/device`,
      verificationUriComplete: `${base}/device?user_code=${encodeURIComponent(shown)}`,
      expiresIn: ttl,
      interval,
    };
  }
}

export type DeviceTokenResult = TokenPair & { user: UserSummary };

type RfcCode = 'unsupported_grant_type' | 'invalid_grant' | 'access_denied' | 'expired_token' | 'slow_down' | 'authorization_pending';
const rfcError = (code: RfcCode, detail: string) => authError(code, detail);

/** The device access token request (RFC 8628 section 3.4) and its answers (section 3.5). */
export async function pollDeviceToken(ctx: RequestContext, input: { deviceCode: string; grantType?: string }): Promise<DeviceTokenResult> {
  const grantType = input.grantType ?? DEVICE_CODE_GRANT_TYPE;
  if (grantType !== DEVICE_CODE_GRANT_TYPE)
    throw rfcError('unsupported_grant_type', `Only the grant type ${DEVICE_CODE_GRANT_TYPE} is supported here.`);
  const hash = sha256(input.deviceCode);
  await servicesOf(ctx).rateLimiter.hit(`device:poll:${hash}`, DEVICE_FLOW_LIMITS.pollPerDeviceCode);
  return commitThenThrow<DeviceTokenResult>(ctx, async (tx) => {
    const row = await tx.manager
      .getRepository(DeviceCode)
      .createQueryBuilder('d')
      .setLock('pessimistic_write')
      .where('d.deviceCodeHash = :hash', { hash })
      .getOne();
    if (!row) return { failure: rfcError('invalid_grant', 'The device code is unknown.') };
    if (row.status === 'consumed')
      return { failure: rfcError('invalid_grant', 'The tokens of this device code were already issued; start again.') };
    if (row.status === 'denied') return { failure: rfcError('access_denied', 'The request was denied.') };
    const now = new Date();
    if (row.expiresAt.getTime() <= now.getTime())
      return { failure: rfcError('expired_token', 'The device code has expired; start again.') };

    if (row.status === 'pending') {
      const tooFast = row.lastPolledAt !== null && now.getTime() - row.lastPolledAt.getTime() < row.intervalSeconds * 1000;
      const intervalSeconds = tooFast ? row.intervalSeconds + SLOW_DOWN_STEP_SECONDS : row.intervalSeconds;
      // Polling bookkeeping, not a change anyone acts on: not audited (like refresh-token rotation).
      await tx.manager.update(DeviceCode, { id: row.id }, { lastPolledAt: now, intervalSeconds });
      return tooFast
        ? { failure: rfcError('slow_down', `Polling too fast; wait at least ${intervalSeconds} seconds between requests.`) }
        : { failure: rfcError('authorization_pending', 'The user has not approved the request yet; keep polling at the interval.') };
    }

    // Approved: issue the tokens once.
    const user = row.userId ? await tx.manager.findOneBy(User, { id: row.userId }) : null;
    if (!user) return { failure: rfcError('invalid_grant', 'The device code is unknown.') };
    await tx.manager.update(DeviceCode, { id: row.id }, { status: 'consumed', lastPolledAt: now });
    const self = actingAs(tx, user);
    const tokens = await openSession(self, user, 'device_flow');
    const signedIn = actingAs(tx, user, tokens.sessionId);
    await recordAudit(signedIn, {
      action: 'device_code.consume',
      resourceType: 'device_code',
      resourceId: row.id,
      before: { status: 'approved' },
      after: { status: 'consumed', sessionId: tokens.sessionId },
    });
    await recordAudit(signedIn, {
      action: 'session.create',
      resourceType: 'session',
      resourceId: tokens.sessionId,
      after: { method: 'device_flow', clientName: row.clientName, scopes: row.scopes, ip: tx.client?.ip ?? null },
    });
    return { ok: { ...tokens, user: userSummary(user) } };
  });
}

/**
 * Approves or denies a pending, unexpired device code as the signed-in user (any user may approve
 * for themselves: the tokens will be theirs). Unknown, expired or already decided codes: 404.
 */
async function decide(ctx: RequestContext, userCode: string, decision: 'approved' | 'denied'): Promise<void> {
  await servicesOf(ctx).rateLimiter.hit(`device:decide:${ctx.actor.id}`, DEVICE_FLOW_LIMITS.decidePerUser);
  const code = normaliseUserCode(userCode);
  await inTransaction(ctx, async (tx) => {
    const row = await tx.manager
      .getRepository(DeviceCode)
      .createQueryBuilder('d')
      .setLock('pessimistic_write')
      .where("d.userCode = :code AND d.status = 'pending' AND d.expiresAt > now()", { code })
      .getOne();
    if (!row)
      throw authError(
        'device_code_not_found',
        'No pending device request has this code; it may have expired. Start again from the command line.',
      );
    await tx.manager.update(DeviceCode, { id: row.id }, { status: decision, userId: ctx.actor.id });
    await recordAudit(tx, {
      action: decision === 'approved' ? 'device_code.approve' : 'device_code.deny',
      resourceType: 'device_code',
      resourceId: row.id,
      before: { status: 'pending' },
      after: { status: decision, clientName: row.clientName, scopes: row.scopes },
    });
  });
}

export async function approveDeviceCode(ctx: RequestContext, userCode: string): Promise<{ approved: true }> {
  await decide(ctx, userCode, 'approved');
  return { approved: true };
}

export async function denyDeviceCode(ctx: RequestContext, userCode: string): Promise<{ denied: true }> {
  await decide(ctx, userCode, 'denied');
  return { denied: true };
}
