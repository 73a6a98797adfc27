/**
 * What the account services share: the rate limits of the account operations, the client's address,
 * acting as a user, the public shape of a user, the password rules check and the lookup by e-mail.
 * auth.service (sign-up, sign-in, sessions), email-tokens.service and two-factor.service all use
 * these, and none of them needs another's.
 */
import { ValidationError } from '../../lib/errors';
import type { RateLimitRule } from '../../storage/rate-limit';
import { User } from '../../storage/entities';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { passwordProblems } from './passwords';

/**
 * Rate limits of the account operations (fixed windows in Redis, shared by every api process).
 * Login counts per client address and e-mail (guessing one account's password) and per address
 * (spraying many accounts); a successful sign-in clears the address+e-mail count.
 */
export const AUTH_LIMITS = {
  registerPerIp: { limit: 10, windowSeconds: 3600 },
  loginPerIpAndEmail: { limit: 10, windowSeconds: 900 },
  loginPerIp: { limit: 100, windowSeconds: 900 },
  forgotPasswordPerIp: { limit: 20, windowSeconds: 3600 },
  /** Over this, forgot-password still answers 202 but sends nothing (no mailbox flooding, nothing revealed). */
  forgotPasswordPerEmail: { limit: 3, windowSeconds: 3600 },
  resendVerificationPerUser: { limit: 1, windowSeconds: 60 },
  changePasswordPerUser: { limit: 5, windowSeconds: 900 },
} as const satisfies Record<string, RateLimitRule>;

export type AuthLimitName = keyof typeof AUTH_LIMITS;

/** The limiter key of a rule for a subject (an address, an address and e-mail, a user id). */
export function limitKey(rule: AuthLimitName, subject: string): string {
  return `auth:${rule}:${subject}`;
}

export async function hitLimit(ctx: RequestContext, rule: AuthLimitName, subject: string): Promise<void> {
  await servicesOf(ctx).rateLimiter.hit(limitKey(rule, subject), AUTH_LIMITS[rule]);
}

export function clientIp(ctx: RequestContext): string {
  return ctx.client?.ip ?? 'unknown';
}

/** The same context acting as `user` (for the audit entries of sign-up and sign-in, whose callers are anonymous). */
export function actingAs(
  ctx: RequestContext,
  user: Pick<User, 'id' | 'tenantId' | 'tenantRole' | 'platformRole'>,
  sessionId?: string,
): RequestContext {
  return {
    ...ctx,
    tenantId: user.tenantId ?? undefined,
    actor: { type: 'user', id: user.id, sessionId, tenantRole: user.tenantRole ?? undefined, platformRole: user.platformRole ?? undefined },
  };
}

export interface UserSummary {
  id: string;
  email: string;
  name: string;
  locale: string | null;
  emailVerified: boolean;
  twoFactorEnabled: boolean;
  tenantId: string | null;
  tenantRole: User['tenantRole'];
  platformRole: User['platformRole'];
  createdAt: string;
}

export function userSummary(user: User): UserSummary {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    locale: user.locale,
    emailVerified: user.emailVerifiedAt !== null,
    twoFactorEnabled: user.totpEnabledAt !== null,
    tenantId: user.tenantId,
    tenantRole: user.tenantRole,
    platformRole: user.platformRole,
    createdAt: user.createdAt.toISOString(),
  };
}

/** Throws 400 validation_failed listing every password rule the password breaks. */
export function assertPasswordRules(password: string, email: string, fieldPath: string): void {
  const problems = passwordProblems(password, email, fieldPath);
  if (problems.length)
    throw new ValidationError(`The password does not meet the password rules: ${problems.map((p) => p.message).join('; ')}.`, problems);
}

/** The user with this (lower-cased) address; the lookup uses the unique index on lower(email). */
export function findUserByEmail(ctx: RequestContext, email: string): Promise<User | null> {
  return ctx.manager.getRepository(User).createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email }).getOne();
}
