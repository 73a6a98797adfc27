/**
 * Phone verification by SMS one-time password. A code is 6 random digits, valid 5 minutes, stored
 * only as an HMAC (keyed with a key derived from APP_SECRET and salted with the row id: a million
 * codes are easy to try against a bare hash, so the key keeps a database dump from revealing them).
 * Because the code space is small, each code allows 5 wrong attempts, then it is dead.
 *
 * Sending is throttled from the rows themselves (PostgreSQL, exact even when Redis is down):
 * one code per minute and 5 per hour per user, and 10 per hour to one number whoever asks (so the
 * endpoint cannot be used to flood someone's phone from many accounts). A new code retires the
 * previous ones of the user.
 */
import { createHmac } from 'node:crypto';
import { MoreThan } from 'typeorm';
import { RateLimitedError } from '../../lib/errors';
import { PhoneOtp, User } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { constantTimeEqual, deriveKey, numericCode } from './secrets';
import { commitThenThrow, lockSignedInUser } from './two-factor.service';
import { authError } from './auth.errors';

export const PHONE_OTP = {
  ttlSeconds: 300,
  digits: 6,
  maxAttempts: 5,
  resendIntervalSeconds: 60,
  perUserPerHour: 5,
  perPhonePerHour: 10,
} as const;

const HOUR_MS = 3600 * 1000;

function codeHash(ctx: RequestContext, otpId: string, code: string): string {
  return createHmac('sha256', deriveKey(servicesOf(ctx).config.appSecret, 'phone-otp'))
    .update(`${otpId}:${code}`)
    .digest('hex');
}

function retryAfter(untilMs: number): number {
  return Math.max(1, Math.ceil((untilMs - Date.now()) / 1000));
}

/**
 * Sends a code to `phone` (E.164) for the signed-in user. 429 with Retry-After when the user asked
 * less than a minute ago, or 5 times in the last hour, or the number got 10 codes in the last hour.
 */
export async function sendPhoneOtp(ctx: RequestContext, phone: string): Promise<{ expiresIn: number }> {
  return inTransaction(ctx, async (tx) => {
    // The lock on the user serialises concurrent sends, so the throttle below cannot be raced.
    const user = await lockSignedInUser(tx);
    const now = Date.now();
    const hourAgo = new Date(now - HOUR_MS);
    const recent = await tx.manager.find(PhoneOtp, {
      where: { userId: user.id, createdAt: MoreThan(hourAgo) },
      order: { createdAt: 'DESC' },
    });
    const latest = recent[0];
    if (latest && now - latest.createdAt.getTime() < PHONE_OTP.resendIntervalSeconds * 1000) {
      throw new RateLimitedError(
        retryAfter(latest.createdAt.getTime() + PHONE_OTP.resendIntervalSeconds * 1000),
        'A code was sent less than a minute ago; wait before asking for another.',
      );
    }
    if (recent.length >= PHONE_OTP.perUserPerHour) {
      const oldest = recent[recent.length - 1]!;
      throw new RateLimitedError(retryAfter(oldest.createdAt.getTime() + HOUR_MS), 'Too many codes were sent in the last hour.');
    }
    const toNumber = await tx.manager.find(PhoneOtp, {
      where: { phone, createdAt: MoreThan(hourAgo) },
      order: { createdAt: 'ASC' },
      take: PHONE_OTP.perPhonePerHour,
    });
    if (toNumber.length >= PHONE_OTP.perPhonePerHour) {
      throw new RateLimitedError(
        retryAfter(toNumber[0]!.createdAt.getTime() + HOUR_MS),
        'Too many codes were sent to this number in the last hour.',
      );
    }

    const createdAt = new Date(now);
    // Only the newest code of a user is valid.
    await tx.manager
      .createQueryBuilder()
      .update(PhoneOtp)
      .set({ expiresAt: createdAt })
      .where('user_id = :userId AND consumed_at IS NULL AND expires_at > :now', { userId: user.id, now: createdAt })
      .execute();
    const id = uuidv7();
    const code = numericCode(PHONE_OTP.digits);
    await tx.manager.insert(PhoneOtp, {
      id,
      userId: user.id,
      phone,
      codeHash: codeHash(tx, id, code),
      attempts: 0,
      createdAt,
      expiresAt: new Date(now + PHONE_OTP.ttlSeconds * 1000),
    });
    await servicesOf(tx).outbound.send(tx.manager, {
      channel: 'sms',
      to: phone,
      template: 'phone_otp',
      body: `Your Commerce platform verification code is ${code}. It expires in ${PHONE_OTP.ttlSeconds / 60} minutes. Never share it.`,
      tenantId: user.tenantId,
    });
    await recordAudit(tx, { action: 'user.phone_otp_send', resourceType: 'user', resourceId: user.id, after: { phone, otpId: id } });
    return { expiresIn: PHONE_OTP.ttlSeconds };
  });
}

const CODE_EXPIRED = () =>
  authError(
    'code_expired',
    'There is no valid code for this number: it expired, was used, or had too many wrong attempts. Request a new one.',
  );

/**
 * Verifies the newest code sent to `phone` for the signed-in user, then records the number as the
 * user's verified phone. Wrong code: 400 `invalid_code` (counted, committed); after 5 wrong attempts,
 * or once expired: 400 `code_expired`.
 */
export async function verifyPhoneOtp(ctx: RequestContext, phone: string, code: string): Promise<{ phone: string; verified: true }> {
  return commitThenThrow<{ phone: string; verified: true }>(ctx, async (tx) => {
    const user = await lockSignedInUser(tx);
    const otp = await tx.manager.findOne(PhoneOtp, { where: { userId: user.id, phone }, order: { createdAt: 'DESC' } });
    if (!otp || otp.consumedAt || otp.expiresAt.getTime() <= Date.now() || otp.attempts >= PHONE_OTP.maxAttempts)
      return { failure: CODE_EXPIRED() };
    if (!constantTimeEqual(codeHash(tx, otp.id, code), otp.codeHash)) {
      const attempts = otp.attempts + 1;
      await tx.manager.update(PhoneOtp, { id: otp.id }, { attempts });
      await recordAudit(tx, {
        action: 'user.phone_verify_fail',
        resourceType: 'user',
        resourceId: user.id,
        after: { phone, otpId: otp.id, attempts, dead: attempts >= PHONE_OTP.maxAttempts },
      });
      return { failure: authError('invalid_code', 'The code is wrong.', [], 400) };
    }
    const verifiedAt = new Date();
    await tx.manager.update(PhoneOtp, { id: otp.id }, { consumedAt: verifiedAt });
    await tx.manager.update(User, { id: user.id }, { phone, phoneVerifiedAt: verifiedAt, updatedAt: verifiedAt });
    await recordAudit(tx, {
      action: 'user.phone_verify',
      resourceType: 'user',
      resourceId: user.id,
      before: { phone: user.phone, phoneVerifiedAt: user.phoneVerifiedAt },
      after: { phone, phoneVerifiedAt: verifiedAt },
    });
    return { ok: { phone, verified: true as const } };
  });
}
