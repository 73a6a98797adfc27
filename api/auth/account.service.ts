/**
 * The signed-in user's own account: sessions (list, revoke one, revoke all others), profile (read,
 * update) and password change. Every operation acts on the caller only; another user's session id
 * answers 404 like an unknown one.
 */
import { IsNull, MoreThan, Not } from 'typeorm';
import { NotFoundError, UnauthorizedError, ValidationError } from '../../lib/errors';
import { Session, Tenant, User } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { hashPassword, verifyPassword } from './passwords';
import { revokeSession } from './sessions';
import { assertPasswordRules, hitLimit, limitKey } from './accounts';
import { authError } from './auth.errors';

function callerOf(ctx: RequestContext): { userId: string; sessionId: string } {
  const { id, sessionId, type } = ctx.actor;
  if (type !== 'user' || !id || !sessionId) throw new UnauthorizedError();
  return { userId: id, sessionId };
}

// ---------------------------------------------------------------------------------------------
// Sessions

export interface SessionView {
  id: string;
  current: boolean;
  ip: string | null;
  userAgent: string | null;
  method: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/** The caller's live sessions (not revoked, not expired), most recently used first. */
export async function listSessions(ctx: RequestContext): Promise<{ items: SessionView[] }> {
  const { userId, sessionId } = callerOf(ctx);
  const sessions = await ctx.manager.find(Session, {
    where: { userId, revokedAt: IsNull(), expiresAt: MoreThan(new Date()) },
    order: { lastSeenAt: 'DESC', id: 'DESC' },
  });
  return {
    items: sessions.map((s) => ({
      id: s.id,
      current: s.id === sessionId,
      ip: s.ip,
      userAgent: s.userAgent,
      method: s.method,
      createdAt: s.createdAt.toISOString(),
      lastSeenAt: s.lastSeenAt.toISOString(),
      expiresAt: s.expiresAt.toISOString(),
    })),
  };
}

/** Revokes one live session of the caller (the current one included: that is a sign-out). */
export async function revokeOneSession(ctx: RequestContext, id: string): Promise<void> {
  const { userId } = callerOf(ctx);
  await inTransaction(ctx, async (tx) => {
    const session = await tx.manager.findOneBy(Session, { id, userId, revokedAt: IsNull(), expiresAt: MoreThan(new Date()) });
    if (!session || !(await revokeSession(tx, session.id, 'revoked_by_user'))) throw new NotFoundError('No such session.');
    await recordAudit(tx, {
      action: 'session.revoke',
      resourceType: 'session',
      resourceId: session.id,
      after: { reason: 'revoked_by_user' },
    });
  });
}

/** Revokes every live session of the caller except the current one. */
export async function revokeOtherSessions(ctx: RequestContext): Promise<{ revoked: number }> {
  const { userId, sessionId } = callerOf(ctx);
  return inTransaction(ctx, async (tx) => {
    const revoked = await endOtherSessions(tx, userId, sessionId, 'revoked_by_user');
    await recordAudit(tx, {
      action: 'session.revoke_others',
      resourceType: 'user',
      resourceId: userId,
      after: { revoked, keptSessionId: sessionId },
    });
    return { revoked };
  });
}

async function endOtherSessions(ctx: RequestContext, userId: string, keep: string, reason: string): Promise<number> {
  const now = new Date();
  const result = await ctx.manager.update(
    Session,
    { userId, id: Not(keep), revokedAt: IsNull(), expiresAt: MoreThan(now) },
    { revokedAt: now, revokeReason: reason },
  );
  return result.affected ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Profile

export interface AccountView {
  id: string;
  email: string;
  name: string;
  locale: string | null;
  phone: string | null;
  phoneVerified: boolean;
  emailVerified: boolean;
  twoFactorEnabled: boolean;
  tenant: { id: string; name: string; kind: Tenant['kind']; role: NonNullable<User['tenantRole']> } | null;
  platformRole: User['platformRole'];
  createdAt: string;
  updatedAt: string;
}

async function accountView(ctx: RequestContext, user: User): Promise<AccountView> {
  const tenant = user.tenantId ? await ctx.manager.findOneBy(Tenant, { id: user.tenantId }) : null;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    locale: user.locale,
    phone: user.phone,
    phoneVerified: user.phone !== null && user.phoneVerifiedAt !== null,
    emailVerified: user.emailVerifiedAt !== null,
    twoFactorEnabled: user.totpEnabledAt !== null,
    tenant: tenant && user.tenantRole ? { id: tenant.id, name: tenant.name, kind: tenant.kind, role: user.tenantRole } : null,
    platformRole: user.platformRole,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}

export async function getAccount(ctx: RequestContext): Promise<AccountView> {
  const { userId } = callerOf(ctx);
  return accountView(ctx, await ctx.manager.findOneByOrFail(User, { id: userId }));
}

export async function updateAccount(ctx: RequestContext, patch: { name?: string; locale?: string | null }): Promise<AccountView> {
  const { userId } = callerOf(ctx);
  return inTransaction(ctx, async (tx) => {
    const user = await tx.manager
      .getRepository(User)
      .createQueryBuilder('u')
      .setLock('pessimistic_write')
      .where('u.id = :id', { id: userId })
      .getOneOrFail();
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    const changes: Partial<User> = {};
    if (patch.name !== undefined && patch.name !== user.name) {
      before.name = user.name;
      after.name = changes.name = patch.name;
    }
    if (patch.locale !== undefined && patch.locale !== user.locale) {
      before.locale = user.locale;
      after.locale = changes.locale = patch.locale;
    }
    if (Object.keys(changes).length) {
      changes.updatedAt = new Date();
      await tx.manager.update(User, { id: user.id }, changes);
      await recordAudit(tx, { action: 'user.update', resourceType: 'user', resourceId: user.id, before, after });
    }
    return accountView(tx, await tx.manager.findOneByOrFail(User, { id: user.id }));
  });
}

/**
 * Changes the password after checking the current one (attempts are limited per user), enforces the
 * rules, and ends every other session of the account; the current one stays signed in.
 */
export async function changePassword(
  ctx: RequestContext,
  input: { currentPassword: string; newPassword: string },
): Promise<{ changed: true; revokedSessions: number }> {
  const { userId, sessionId } = callerOf(ctx);
  await hitLimit(ctx, 'changePasswordPerUser', userId);
  const user = await ctx.manager.findOneByOrFail(User, { id: userId });
  if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
    throw authError('invalid_password', 'The current password is wrong.', [
      { path: 'body.currentPassword', message: 'currentPassword is wrong' },
    ]);
  }
  assertPasswordRules(input.newPassword, user.email, 'body.newPassword');
  if (input.newPassword === input.currentPassword) {
    throw new ValidationError('The new password must differ from the current one.', [
      { path: 'body.newPassword', message: 'newPassword must differ from the current password' },
    ]);
  }
  const passwordHash = await hashPassword(input.newPassword);
  const result = await inTransaction(ctx, async (tx) => {
    const now = new Date();
    await tx.manager.update(User, { id: userId }, { passwordHash, passwordChangedAt: now, updatedAt: now });
    const revokedSessions = await endOtherSessions(tx, userId, sessionId, 'password_changed');
    // Field names avoid "password": the audit writer drops such fields as secrets.
    await recordAudit(tx, {
      action: 'user.password_change',
      resourceType: 'user',
      resourceId: userId,
      before: { changedAt: user.passwordChangedAt },
      after: { changedAt: now, revokedSessions },
    });
    return { changed: true as const, revokedSessions };
  });
  await servicesOf(ctx).rateLimiter.reset(limitKey('changePasswordPerUser', userId));
  return result;
}
