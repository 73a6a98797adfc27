/**
 * Sessions and their tokens: a session per signed-in device, an access token (JWT) naming it, and an
 * opaque refresh token that rotates on every use. Presenting a refresh token that was already used
 * means it was stolen or replayed, so the whole session is revoked (reuse detection).
 */
import { IsNull } from 'typeorm';
import { RefreshToken, Session, type User } from '../../storage/entities';
import { uuidv7 } from '../../storage/ids';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { signAccessToken } from './access-tokens';
import { randomToken, sha256 } from './secrets';
import { authError } from './auth.errors';

export interface TokenPair {
  tokenType: 'Bearer';
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
  sessionId: string;
}

async function issueRefreshToken(ctx: RequestContext, sessionId: string): Promise<string> {
  const { config } = servicesOf(ctx);
  const token = `rt_${randomToken(32)}`;
  await ctx.manager.insert(RefreshToken, {
    id: uuidv7(),
    sessionId,
    tokenHash: sha256(token),
    expiresAt: new Date(Date.now() + config.auth.refreshTokenTtlSeconds * 1000),
  });
  return token;
}

async function accessTokenFor(ctx: RequestContext, user: Pick<User, 'id' | 'tenantId'>, sessionId: string): Promise<string> {
  const { config } = servicesOf(ctx);
  return signAccessToken(config.appSecret, { sub: user.id, sid: sessionId, tid: user.tenantId }, config.auth.accessTokenTtlSeconds);
}

/** Opens a session for `user` and returns its first token pair. Call inside the caller's transaction. */
export async function openSession(ctx: RequestContext, user: Pick<User, 'id' | 'tenantId'>, method: string): Promise<TokenPair> {
  const { config } = servicesOf(ctx);
  const sessionId = uuidv7();
  await ctx.manager.insert(Session, {
    id: sessionId,
    userId: user.id,
    tenantId: user.tenantId,
    ip: ctx.client?.ip ?? null,
    userAgent: ctx.client?.userAgent?.slice(0, 500) ?? null,
    method,
    expiresAt: new Date(Date.now() + config.auth.refreshTokenTtlSeconds * 1000),
  });
  return {
    tokenType: 'Bearer',
    accessToken: await accessTokenFor(ctx, user, sessionId),
    expiresIn: config.auth.accessTokenTtlSeconds,
    refreshToken: await issueRefreshToken(ctx, sessionId),
    refreshExpiresIn: config.auth.refreshTokenTtlSeconds,
    sessionId,
  };
}

export async function revokeSession(ctx: RequestContext, sessionId: string, reason: string): Promise<boolean> {
  const result = await ctx.manager.update(Session, { id: sessionId, revokedAt: IsNull() }, { revokedAt: new Date(), revokeReason: reason });
  return (result.affected ?? 0) > 0;
}

const INVALID_REFRESH = () => authError('invalid_refresh_token', 'The refresh token is invalid or expired.');

/**
 * Rotates a refresh token: the presented one is marked used and a new pair is issued for the same
 * session. A used token revokes the session. Runs in the caller's transaction; the token row is
 * locked so two concurrent refreshes cannot both succeed.
 */
export async function rotateRefreshToken(ctx: RequestContext, presented: string): Promise<TokenPair> {
  const { config } = servicesOf(ctx);
  const row = await ctx.manager
    .getRepository(RefreshToken)
    .createQueryBuilder('t')
    .setLock('pessimistic_write')
    .where('t.tokenHash = :hash', { hash: sha256(presented) })
    .getOne();
  if (!row) throw INVALID_REFRESH();
  const session = await ctx.manager.findOneBy(Session, { id: row.sessionId });
  if (!session || session.revokedAt || session.expiresAt.getTime() <= Date.now()) throw INVALID_REFRESH();
  if (row.usedAt) {
    await revokeSession(ctx, session.id, 'refresh_token_reuse');
    throw authError('refresh_token_reused', 'This refresh token was already used; the session has been revoked.');
  }
  if (row.expiresAt.getTime() <= Date.now()) throw INVALID_REFRESH();
  await ctx.manager.update(RefreshToken, { id: row.id }, { usedAt: new Date() });
  await ctx.manager.update(Session, { id: session.id }, { lastSeenAt: new Date() });
  return {
    tokenType: 'Bearer',
    accessToken: await accessTokenFor(ctx, { id: session.userId, tenantId: session.tenantId }, session.id),
    expiresIn: config.auth.accessTokenTtlSeconds,
    refreshToken: await issueRefreshToken(ctx, session.id),
    refreshExpiresIn: config.auth.refreshTokenTtlSeconds,
    sessionId: session.id,
  };
}
