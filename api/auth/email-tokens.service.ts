/**
 * Tokens sent by e-mail: address verification and password reset. Each is random (256 bits), stored
 * only as its SHA-256, single use and expiring; issuing a new one retires the unused ones of the same
 * purpose, so only the latest link works.
 */
import { IsNull, MoreThan } from 'typeorm';
import { RateLimitedError } from '../../lib/errors';
import { OneTimeToken, Session, User } from '../../storage/entities';
import type { OneTimeTokenPurpose } from '../../storage/entities/one-time-token.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { hashPassword } from './passwords';
import { randomToken, sha256 } from './secrets';
import { actingAs, assertPasswordRules, clientIp, findUserByEmail, hitLimit } from './accounts';
import { authError } from './auth.errors';

/** A password reset link is valid for one hour. */
export const RESET_TOKEN_TTL_SECONDS = 3600;

/** Forgot-password answers no sooner than this, whether or not the address has an account. */
const FORGOT_PASSWORD_MIN_MS = 250;

type EmailPurpose = Extract<OneTimeTokenPurpose, 'verify_email' | 'reset_password'>;

async function issueEmailToken(ctx: RequestContext, user: User, purpose: EmailPurpose, ttlSeconds: number): Promise<string> {
  const now = new Date();
  await ctx.manager.update(OneTimeToken, { userId: user.id, purpose, usedAt: IsNull() }, { usedAt: now });
  const token = randomToken(32);
  await ctx.manager.insert(OneTimeToken, {
    id: uuidv7(),
    userId: user.id,
    purpose,
    tokenHash: sha256(token),
    data: { email: user.email },
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
  });
  return token;
}

function link(ctx: RequestContext, page: string, token: string): string {
  return `${servicesOf(ctx).config.publicBaseUrl.replace(/\/+$/, '')}/${page}?token=${encodeURIComponent(token)}`;
}

/** Issues a verification token and e-mails it. Call inside the caller's transaction. */
export async function sendVerificationEmail(ctx: RequestContext, user: User): Promise<void> {
  const { config, outbound } = servicesOf(ctx);
  const token = await issueEmailToken(ctx, user, 'verify_email', config.auth.emailTokenTtlSeconds);
  const hours = Math.round((config.auth.emailTokenTtlSeconds / 3600) * 10) / 10;
  await outbound.send(ctx.manager, {
    channel: 'email',
    to: user.email,
    template: 'verify_email',
    subject: 'Confirm your e-mail address',
    body: [
      `Hello ${user.name},`,
      '',
      `Confirm your e-mail address by opening this link within ${hours} hours:`,
      link(ctx, 'verify-email', token),
      '',
      `Or send this token to POST /api/v1/auth/verify-email: ${token}`,
    ].join('\n'),
    tenantId: user.tenantId,
  });
}

/** Locks and returns a usable token of `purpose`, or throws 400 invalid_token (unknown, used or expired alike). */
async function consumableToken(ctx: RequestContext, presented: string, purpose: EmailPurpose): Promise<OneTimeToken> {
  const row = await ctx.manager
    .getRepository(OneTimeToken)
    .createQueryBuilder('t')
    .setLock('pessimistic_write')
    .where('t.purpose = :purpose AND t.tokenHash = :hash', { purpose, hash: sha256(presented) })
    .getOne();
  if (!row || row.usedAt || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) {
    throw authError('invalid_token', 'The token is invalid, already used or expired; request a new one.', [], 400);
  }
  return row;
}

/** Confirms the address the token was sent to. */
export async function verifyEmail(ctx: RequestContext, presented: string): Promise<{ verified: true; email: string }> {
  return inTransaction(ctx, async (tx) => {
    const token = await consumableToken(tx, presented, 'verify_email');
    const user = await tx.manager.findOneByOrFail(User, { id: token.userId });
    await tx.manager.update(OneTimeToken, { id: token.id }, { usedAt: new Date() });
    // The address may have changed since the link was sent; only the address it was sent to is confirmed.
    if (token.data.email !== user.email)
      throw authError('invalid_token', 'The token is invalid, already used or expired; request a new one.', [], 400);
    if (!user.emailVerifiedAt) {
      const verifiedAt = new Date();
      await tx.manager.update(User, { id: user.id }, { emailVerifiedAt: verifiedAt, updatedAt: verifiedAt });
      await recordAudit(actingAs(tx, user), {
        action: 'user.verify_email',
        resourceType: 'user',
        resourceId: user.id,
        before: { emailVerifiedAt: null },
        after: { email: user.email, emailVerifiedAt: verifiedAt },
      });
    }
    return { verified: true as const, email: user.email };
  });
}

/** Sends the verification e-mail again; already verified accounts get nothing (and the same answer). */
export async function resendVerification(ctx: RequestContext): Promise<{ accepted: true }> {
  const userId = ctx.actor.id!;
  await hitLimit(ctx, 'resendVerificationPerUser', userId);
  await inTransaction(ctx, async (tx) => {
    const user = await tx.manager.findOneByOrFail(User, { id: userId });
    if (user.emailVerifiedAt) return;
    await sendVerificationEmail(tx, user);
    await recordAudit(tx, { action: 'user.resend_verification', resourceType: 'user', resourceId: user.id, after: { email: user.email } });
  });
  return { accepted: true };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Always 202, and no sooner than FORGOT_PASSWORD_MIN_MS, so neither the answer nor its timing tells
 * whether the address has an account. Per client address the operation is limited (429); per
 * e-mail address the extra requests are answered alike but send nothing.
 */
export async function forgotPassword(ctx: RequestContext, email: string): Promise<{ accepted: true }> {
  const started = Date.now();
  await hitLimit(ctx, 'forgotPasswordPerIp', clientIp(ctx));
  let withinEmailLimit = true;
  try {
    await hitLimit(ctx, 'forgotPasswordPerEmail', email);
  } catch (error) {
    if (!(error instanceof RateLimitedError)) throw error;
    withinEmailLimit = false;
  }
  if (withinEmailLimit) {
    await inTransaction(ctx, async (tx) => {
      const user = await findUserByEmail(tx, email);
      if (!user) return;
      const token = await issueEmailToken(tx, user, 'reset_password', RESET_TOKEN_TTL_SECONDS);
      await servicesOf(tx).outbound.send(tx.manager, {
        channel: 'email',
        to: user.email,
        template: 'reset_password',
        subject: 'Reset your password',
        body: [
          `Hello ${user.name},`,
          '',
          'Someone asked to reset the password of your account. If it was you, open this link within one hour:',
          link(tx, 'reset-password', token),
          '',
          `Or send this token with the new password to POST /api/v1/auth/reset-password: ${token}`,
          '',
          'If it was not you, ignore this message; your password stays as it is.',
        ].join('\n'),
        tenantId: user.tenantId,
      });
      await recordAudit(actingAs(tx, user), {
        action: 'user.password_reset_request',
        resourceType: 'user',
        resourceId: user.id,
        after: { ip: clientIp(tx) },
      });
    });
  }
  const remaining = FORGOT_PASSWORD_MIN_MS - (Date.now() - started);
  if (remaining > 0) await sleep(remaining);
  return { accepted: true };
}

/**
 * Sets a new password with a reset token, retires the token and ends every session of the account
 * (whoever knew the old password is signed out). Following the link proves the mailbox, so an
 * unverified address becomes verified. The password rules are checked before the token is spent.
 */
export async function resetPassword(
  ctx: RequestContext,
  presented: string,
  password: string,
): Promise<{ reset: true; revokedSessions: number }> {
  return inTransaction(ctx, async (tx) => {
    const token = await consumableToken(tx, presented, 'reset_password');
    const user = await tx.manager.findOneByOrFail(User, { id: token.userId });
    if (token.data.email !== user.email)
      throw authError('invalid_token', 'The token is invalid, already used or expired; request a new one.', [], 400);
    assertPasswordRules(password, user.email, 'body.password');
    const now = new Date();
    await tx.manager.update(OneTimeToken, { id: token.id }, { usedAt: now });
    await tx.manager.update(
      User,
      { id: user.id },
      { passwordHash: await hashPassword(password), passwordChangedAt: now, updatedAt: now, emailVerifiedAt: user.emailVerifiedAt ?? now },
    );
    const revoked = await tx.manager.update(
      Session,
      { userId: user.id, revokedAt: IsNull(), expiresAt: MoreThan(now) },
      { revokedAt: now, revokeReason: 'password_reset' },
    );
    const revokedSessions = revoked.affected ?? 0;
    await recordAudit(actingAs(tx, user), {
      action: 'user.password_reset',
      resourceType: 'user',
      resourceId: user.id,
      // Field names avoid "password": the audit writer drops such fields as secrets.
      before: { changedAt: user.passwordChangedAt, emailVerifiedAt: user.emailVerifiedAt },
      after: { changedAt: now, emailVerifiedAt: user.emailVerifiedAt ?? now, revokedSessions },
    });
    return { reset: true as const, revokedSessions };
  });
}
