/**
 * Two-factor authentication with TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps, ±1 step of
 * clock drift) and one-time recovery codes.
 *
 * - The TOTP secret must be readable to check codes, so it is stored encrypted (AES-256-GCM with a
 *   key derived from APP_SECRET), never in clear; it is shown once, by setup.
 * - Recovery codes are shown once, by activate, and stored as HMACs (keyed with a key derived from
 *   APP_SECRET, salted with the user id), one single-use one_time_tokens row each.
 * - A TOTP code is spent: users.totp_last_step remembers the last time step used, and only a later
 *   step is accepted (a conditional UPDATE, so two concurrent uses of one code cannot both pass).
 *   This refuses replays through a fresh sign-in too, which a per-challenge record would not.
 * - Sign-in with two-factor on: login answers a challenge token (single use, 5 minutes, stored
 *   hashed); POST /auth/2fa/challenge completes it with a code or a recovery code. Each challenge
 *   allows 5 wrong codes, then it is burnt; attempts are counted in PostgreSQL, so the limit holds
 *   even while the Redis rate limiter is down.
 */
import { createHmac, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { IsNull } from 'typeorm';
import type { RateLimitRule } from '../../storage/rate-limit';
import { OneTimeToken, User } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { openSession, type TokenPair } from './sessions';
import { decrypt, deriveKey, encrypt, randomToken, sha256 } from './secrets';
import { actingAs, clientIp, userSummary, type UserSummary } from './accounts';
import { authError } from './auth.errors';
import type { TwoFactorChallengeDto } from './auth-second-factor.schemas';
import type { InputOf } from '../http/typed-schema';

export const TOTP_ISSUER = 'Commerce platform';
const TOTP_PERIOD = 30;
const TOTP_DIGITS = 6;
const TOTP_WINDOW = 1;

export const CHALLENGE_TTL_SECONDS = 300;
export const CHALLENGE_MAX_ATTEMPTS = 5;
export const RECOVERY_CODE_COUNT = 10;

/** Crockford's base32 alphabet (no i, l, o, u): 12 characters carry 60 bits. */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const RECOVERY_LENGTH = 12;

export const TWO_FACTOR_LIMITS = {
  /** Activate and disable: guesses of a 6-digit code by someone holding a session. */
  verifyPerUser: { limit: 10, windowSeconds: 900 },
  /** Challenge completions from one address (each challenge also stops after 5 wrong codes). */
  challengePerIp: { limit: 60, windowSeconds: 900 },
} as const satisfies Record<string, RateLimitRule>;

// ---------------------------------------------------------------------------------------------
// Secrets and codes

function totpKey(ctx: RequestContext): Buffer {
  return deriveKey(servicesOf(ctx).config.appSecret, 'totp');
}

function totpFor(secretBase32: string, label: string): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    secret: Secret.fromBase32(secretBase32),
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD,
  });
}

/** The time step a code belongs to (within ±1 step of now), or null when it matches none. */
function matchingStep(secretBase32: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secretBase32, 'check').validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD, timestamp: now }) + delta;
}

/**
 * Spends a time step: true when `step` is later than the last one the user spent (and records it),
 * false for a replay. One conditional UPDATE, so concurrent requests with the same code serialise
 * on the row and only one wins. (Raw SQL: the column, added by migration 1795000000020, is not
 * mapped in the User entity, which this module does not own.)
 */
async function spendStep(ctx: RequestContext, userId: string, step: number): Promise<boolean> {
  const result = (await ctx.manager.query(
    'UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)',
    [userId, step],
  )) as [unknown[], number];
  return result[1] === 1;
}

/** Checks a TOTP code against the user's secret and spends its step. */
async function acceptTotp(ctx: RequestContext, user: User, code: string): Promise<boolean> {
  if (!user.totpSecretEnc) return false;
  const step = matchingStep(decrypt(totpKey(ctx), user.totpSecretEnc), code);
  if (step === null) return false;
  return spendStep(ctx, user.id, step);
}

function newRecoveryCode(): string {
  let raw = '';
  for (let i = 0; i < RECOVERY_LENGTH; i += 1) raw += RECOVERY_ALPHABET[randomInt(0, RECOVERY_ALPHABET.length)];
  return `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8)}`;
}

/** Case, hyphens and spaces do not matter; o, i and l read as 0, 1 and 1 (Crockford). */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
}

function recoveryCodeHash(ctx: RequestContext, userId: string, code: string): string {
  return createHmac('sha256', deriveKey(servicesOf(ctx).config.appSecret, 'recovery-code'))
    .update(`${userId}:${normaliseRecoveryCode(code)}`)
    .digest('hex');
}

/** Spends a recovery code of the user: true when it existed unused (it is now used). */
async function acceptRecoveryCode(ctx: RequestContext, userId: string, code: string): Promise<boolean> {
  const normalised = normaliseRecoveryCode(code);
  if (normalised.length !== RECOVERY_LENGTH || [...normalised].some((c) => !RECOVERY_ALPHABET.includes(c))) return false;
  const result = await ctx.manager.update(
    OneTimeToken,
    { userId, purpose: 'recovery_code', tokenHash: recoveryCodeHash(ctx, userId, code), usedAt: IsNull() },
    { usedAt: new Date() },
  );
  return (result.affected ?? 0) === 1;
}

async function remainingRecoveryCodes(ctx: RequestContext, userId: string): Promise<number> {
  return ctx.manager.countBy(OneTimeToken, { userId, purpose: 'recovery_code', usedAt: IsNull() });
}

/** The signed-in user, locked for the rest of the transaction. */
export async function lockSignedInUser(ctx: RequestContext): Promise<User> {
  const id = ctx.actor.type === 'user' ? ctx.actor.id : undefined;
  const user = id
    ? await ctx.manager.getRepository(User).createQueryBuilder('u').setLock('pessimistic_write').where('u.id = :id', { id }).getOne()
    : null;
  if (!user) throw authError('invalid_token', 'The access token is invalid.', [], 401);
  return user;
}

const INVALID_CODE_DETAIL = 'The code is wrong, already used, or outside its time window.';

// ---------------------------------------------------------------------------------------------
// Setup, activate, disable

export interface TwoFactorSetup {
  secret: string;
  otpauthUri: string;
}

/**
 * Starts setup: a new random secret (160 bits), stored encrypted but not yet enabled. Calling setup
 * again before activating replaces the secret; once two-factor is on it answers 409.
 */
export async function setupTwoFactor(ctx: RequestContext): Promise<TwoFactorSetup> {
  return inTransaction(ctx, async (tx) => {
    const user = await lockSignedInUser(tx);
    if (user.totpEnabledAt)
      throw authError(
        'two_factor_already_enabled',
        'Two-factor authentication is already on; disable it first to set up a new authenticator.',
      );
    const secret = new Secret({ size: 20 }).base32;
    // A new secret starts a new sequence of time steps (totp_last_step is not in the entity: see spendStep).
    await tx.manager.query('UPDATE users SET totp_secret_enc = $2, totp_last_step = NULL, updated_at = now() WHERE id = $1', [
      user.id,
      encrypt(totpKey(tx), secret),
    ]);
    await recordAudit(tx, {
      action: 'user.two_factor_setup',
      resourceType: 'user',
      resourceId: user.id,
      before: { twoFactorEnabled: false, twoFactorPending: user.totpSecretEnc !== null },
      after: { twoFactorEnabled: false, twoFactorPending: true },
    });
    return { secret, otpauthUri: totpFor(secret, user.email).toString() };
  });
}

/** Runs `work`; an AppError it returns as `failure` is thrown after the transaction commits (so counters and audit entries of a failure stay). */
export async function commitThenThrow<T>(
  ctx: RequestContext,
  work: (tx: RequestContext) => Promise<{ ok: T } | { failure: Error }>,
): Promise<T> {
  const outcome = await inTransaction(ctx, work);
  if ('failure' in outcome) throw outcome.failure;
  return outcome.ok;
}

/**
 * Turns two-factor on with a first valid code from the authenticator, and returns 10 recovery codes
 * (shown this once). Wrong code: 400 `invalid_code` (10 tries per 15 minutes per user).
 */
export async function activateTwoFactor(ctx: RequestContext, code: string): Promise<{ enabled: true; recoveryCodes: string[] }> {
  await servicesOf(ctx).rateLimiter.hit(`2fa:verify:${ctx.actor.id}`, TWO_FACTOR_LIMITS.verifyPerUser);
  return inTransaction(ctx, async (tx) => {
    const user = await lockSignedInUser(tx);
    if (user.totpEnabledAt) throw authError('two_factor_already_enabled', 'Two-factor authentication is already on.');
    if (!user.totpSecretEnc)
      throw authError('two_factor_not_set_up', 'Start with POST /auth/2fa/setup, then activate with a code from the authenticator.');
    if (!(await acceptTotp(tx, user, code))) throw authError('invalid_code', INVALID_CODE_DETAIL, [], 400);
    const enabledAt = new Date();
    await tx.manager.update(User, { id: user.id }, { totpEnabledAt: enabledAt, updatedAt: enabledAt });
    await tx.manager.delete(OneTimeToken, { userId: user.id, purpose: 'recovery_code' });
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await tx.manager.insert(
      OneTimeToken,
      recoveryCodes.map((rc) => ({
        id: uuidv7(),
        userId: user.id,
        purpose: 'recovery_code' as const,
        tokenHash: recoveryCodeHash(tx, user.id, rc),
        expiresAt: null,
      })),
    );
    await recordAudit(tx, {
      action: 'user.two_factor_enable',
      resourceType: 'user',
      resourceId: user.id,
      before: { twoFactorEnabled: false },
      after: { twoFactorEnabled: true, twoFactorEnabledAt: enabledAt, recoveryRemaining: RECOVERY_CODE_COUNT },
    });
    return { enabled: true as const, recoveryCodes };
  });
}

/**
 * Turns two-factor off with a current TOTP code or an unused recovery code: the secret, the
 * recovery codes and any open sign-in challenge are deleted. Not on: 409 `two_factor_not_enabled`.
 */
export async function disableTwoFactor(ctx: RequestContext, code: string): Promise<{ enabled: false }> {
  await servicesOf(ctx).rateLimiter.hit(`2fa:verify:${ctx.actor.id}`, TWO_FACTOR_LIMITS.verifyPerUser);
  return inTransaction(ctx, async (tx) => {
    const user = await lockSignedInUser(tx);
    if (!user.totpEnabledAt) throw authError('two_factor_not_enabled', 'Two-factor authentication is not on.');
    const trimmed = code.trim();
    const viaTotp = /^\d{6}$/.test(trimmed);
    const accepted = viaTotp ? await acceptTotp(tx, user, trimmed) : await acceptRecoveryCode(tx, user.id, trimmed);
    if (!accepted) throw authError('invalid_code', INVALID_CODE_DETAIL, [], 400);
    await tx.manager.query(
      'UPDATE users SET totp_secret_enc = NULL, totp_enabled_at = NULL, totp_last_step = NULL, updated_at = now() WHERE id = $1',
      [user.id],
    );
    await tx.manager.delete(OneTimeToken, { userId: user.id, purpose: 'recovery_code' });
    await tx.manager.delete(OneTimeToken, { userId: user.id, purpose: 'two_factor_challenge' });
    await recordAudit(tx, {
      action: 'user.two_factor_disable',
      resourceType: 'user',
      resourceId: user.id,
      before: { twoFactorEnabled: true, twoFactorEnabledAt: user.totpEnabledAt },
      after: { twoFactorEnabled: false, confirmedWith: viaTotp ? 'totp' : 'recovery' },
    });
    return { enabled: false as const };
  });
}

// ---------------------------------------------------------------------------------------------
// Sign-in challenge

/**
 * Called by login when the password was right and two-factor is on: a single-use challenge token,
 * valid 5 minutes, stored hashed. Expired and used challenges of the user are cleared on the way.
 */
export async function createTwoFactorChallenge(ctx: RequestContext, user: User): Promise<{ challengeToken: string; expiresIn: number }> {
  const challengeToken = `tfc_${randomToken(32)}`;
  await inTransaction(ctx, async (tx) => {
    const self = actingAs(tx, user);
    await tx.manager
      .createQueryBuilder()
      .delete()
      .from(OneTimeToken)
      .where('user_id = :userId AND purpose = :purpose AND (used_at IS NOT NULL OR expires_at <= now())', {
        userId: user.id,
        purpose: 'two_factor_challenge',
      })
      .execute();
    const id = uuidv7();
    await tx.manager.insert(OneTimeToken, {
      id,
      userId: user.id,
      purpose: 'two_factor_challenge',
      tokenHash: sha256(challengeToken),
      data: { attempts: 0 },
      expiresAt: new Date(Date.now() + CHALLENGE_TTL_SECONDS * 1000),
    });
    await recordAudit(self, {
      action: 'user.two_factor_challenge',
      resourceType: 'user',
      resourceId: user.id,
      after: { challengeId: id, ip: tx.client?.ip ?? null },
    });
  });
  return { challengeToken, expiresIn: CHALLENGE_TTL_SECONDS };
}

export type ChallengeInput = InputOf<typeof TwoFactorChallengeDto>;

export type ChallengeResult = TokenPair & { user: UserSummary };

const CHALLENGE_EXPIRED = () => authError('challenge_expired', 'The sign-in challenge is unknown, used or expired; sign in again.');

/**
 * Completes a two-factor sign-in. Right code: the challenge is used and a session opens (method
 * `two_factor`). Wrong code: 401 `invalid_code`, counted; after 5 the challenge is burnt and every
 * later attempt answers 401 `challenge_expired`, like an unknown or expired challenge.
 */
export async function completeTwoFactorChallenge(ctx: RequestContext, input: ChallengeInput): Promise<ChallengeResult> {
  await servicesOf(ctx).rateLimiter.hit(`2fa:challenge:${clientIp(ctx)}`, TWO_FACTOR_LIMITS.challengePerIp);
  return commitThenThrow<ChallengeResult>(ctx, async (tx) => {
    const challenge = await tx.manager
      .getRepository(OneTimeToken)
      .createQueryBuilder('t')
      .setLock('pessimistic_write')
      .where('t.purpose = :purpose AND t.tokenHash = :hash', { purpose: 'two_factor_challenge', hash: sha256(input.challengeToken) })
      .getOne();
    if (!challenge || challenge.usedAt || !challenge.expiresAt || challenge.expiresAt.getTime() <= Date.now())
      return { failure: CHALLENGE_EXPIRED() };
    const attempts = Number(challenge.data.attempts ?? 0);
    const user = await tx.manager.findOneBy(User, { id: challenge.userId });
    if (!user || !user.totpEnabledAt || attempts >= CHALLENGE_MAX_ATTEMPTS) return { failure: CHALLENGE_EXPIRED() };
    const self = actingAs(tx, user);

    const viaRecovery = input.recoveryCode !== undefined;
    const accepted = viaRecovery
      ? await acceptRecoveryCode(tx, user.id, input.recoveryCode!)
      : await acceptTotp(tx, user, input.code ?? '');
    if (!accepted) {
      const burnt = attempts + 1 >= CHALLENGE_MAX_ATTEMPTS;
      await tx.manager.update(
        OneTimeToken,
        { id: challenge.id },
        { data: { ...challenge.data, attempts: attempts + 1 }, ...(burnt ? { usedAt: new Date() } : {}) },
      );
      await recordAudit(self, {
        action: 'user.two_factor_challenge_fail',
        resourceType: 'user',
        resourceId: user.id,
        after: { challengeId: challenge.id, attempts: attempts + 1, burnt, with: viaRecovery ? 'recovery' : 'totp' },
      });
      return { failure: authError('invalid_code', INVALID_CODE_DETAIL, [], 401) };
    }

    await tx.manager.update(OneTimeToken, { id: challenge.id }, { usedAt: new Date() });
    const tokens = await openSession(self, user, 'two_factor');
    const signedIn = actingAs(tx, user, tokens.sessionId);
    if (viaRecovery) {
      await recordAudit(signedIn, {
        action: 'user.recovery_code_use',
        resourceType: 'user',
        resourceId: user.id,
        after: { recoveryRemaining: await remainingRecoveryCodes(tx, user.id) },
      });
    }
    await recordAudit(signedIn, {
      action: 'session.create',
      resourceType: 'session',
      resourceId: tokens.sessionId,
      after: { method: 'two_factor', secondFactor: viaRecovery ? 'recovery' : 'totp', ip: tx.client?.ip ?? null },
    });
    return { ok: { ...tokens, user: userSummary(user) } };
  });
}
