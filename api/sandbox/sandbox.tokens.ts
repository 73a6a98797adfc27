/**
 * The token simulator of the sandbox, to rehearse the OAuth flow, scope checks, expired tokens and
 * refresh. A simulated token is a store API key of the sandbox with the scopes and lifetime the
 * integrator chooses, a negative lifetime giving a token that is already expired; it
 * goes through the same authentication as every token, so an expired one answers 401
 * invalid_api_key and one without the operation's scope 403 insufficient_scope.
 *
 * With `refresh: true` the token comes with a refresh credential (`rt_…`, valid 30 days). Trading it
 * at POST /sandbox/tokens/refresh (no Authorization needed, like an OAuth refresh grant) revokes the
 * old token and answers a new token with the same scopes and lifetime (at least one hour when the
 * original was issued expired) and a new refresh credential: refresh credentials rotate and work
 * once; a second use answers 401 refresh_token_reused and revokes the token issued from it.
 * A reset of the sandbox removes every simulated token.
 */
import { ApiKey, Sandbox, SandboxRefreshToken } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { randomToken, sha256 } from '../auth/secrets';
import { newKeyPrefix } from '../api-keys/api-keys.service';
import { knownScopes } from '../api-keys/api-keys.scopes';
import { UnauthorizedError, ValidationError } from '../../lib/errors';
import { sandboxNotFound } from './sandbox.service';
import { sandboxError } from './sandbox.errors';

export const REFRESH_TTL_SECONDS = 30 * 24 * 3_600;
export const MIN_REFRESHED_TTL_SECONDS = 3_600;
export const REFRESH_LIMIT = { limit: 60, windowSeconds: 60 };

export interface IssueTokenInput {
  scopes: string[];
  expiresInSeconds: number;
  refresh?: boolean;
}

export interface IssuedToken {
  token: string;
  tokenId: string;
  prefix: string;
  scopes: string[];
  expiresAt: string;
  expired: boolean;
  refreshToken: string | null;
  refreshExpiresAt: string | null;
}

async function issue(
  tx: RequestContext,
  sandbox: Sandbox,
  scopes: string[],
  ttlSeconds: number,
  withRefresh: boolean,
): Promise<IssuedToken> {
  const now = Date.now();
  const token = `${newKeyPrefix()}_${randomToken(32)}`;
  const prefix = token.split('_').slice(0, 2).join('_');
  const id = uuidv7();
  const expiresAt = new Date(now + ttlSeconds * 1000);
  await tx.manager.insert(ApiKey, {
    id,
    tenantId: sandbox.tenantId,
    storeId: sandbox.storeId,
    name: 'Simulated token',
    prefix,
    secretHash: sha256(token),
    scopes,
    createdBy: null,
    createdAt: new Date(now),
    expiresAt,
  });
  let refreshToken: string | null = null;
  let refreshExpiresAt: Date | null = null;
  if (withRefresh) {
    refreshToken = `rt_${randomToken(32)}`;
    refreshExpiresAt = new Date(now + REFRESH_TTL_SECONDS * 1000);
    await tx.manager.insert(SandboxRefreshToken, {
      id: uuidv7(),
      tenantId: sandbox.tenantId,
      tokenHash: sha256(refreshToken),
      apiKeyId: id,
      scopes,
      accessTtlSeconds: ttlSeconds,
      expiresAt: refreshExpiresAt,
      usedAt: null,
      createdAt: new Date(now),
    });
  }
  await recordAudit(tx, {
    action: 'api_key.create',
    resourceType: 'api_key',
    resourceId: id,
    tenantId: sandbox.tenantId,
    after: { name: 'Simulated token', prefix, scopes, expiresAt, refresh: withRefresh },
  });
  return {
    token,
    tokenId: id,
    prefix,
    scopes,
    expiresAt: expiresAt.toISOString(),
    expired: expiresAt.getTime() <= now,
    refreshToken,
    refreshExpiresAt: refreshExpiresAt?.toISOString() ?? null,
  };
}

export async function issueSimulatedToken(ctx: RequestContext, input: IssueTokenInput): Promise<IssuedToken> {
  const known = knownScopes();
  const scopes = [...new Set(input.scopes)];
  const unknown = scopes.filter((s) => !known.has(s));
  if (unknown.length)
    throw new ValidationError(
      'Unknown scopes.',
      unknown.map((s) => ({ path: 'body.scopes', message: `${s} is not a scope of any operation` })),
    );
  return inTransaction(ctx, async (tx) => {
    if (!tx.tenantId) throw sandboxNotFound();
    const sandbox = await tx.manager.findOneBy(Sandbox, { tenantId: tx.tenantId });
    if (!sandbox) throw sandboxNotFound();
    return issue(tx, sandbox, scopes, input.expiresInSeconds, input.refresh ?? false);
  });
}

export async function refreshSimulatedToken(ctx: RequestContext, input: { refreshToken: string }): Promise<IssuedToken> {
  await servicesOf(ctx).rateLimiter.hit(`sandbox:refresh:${ctx.client?.ip ?? 'unknown'}`, REFRESH_LIMIT);
  const invalid = (): UnauthorizedError => sandboxError('invalid_refresh_token', 'The refresh token is invalid or expired.');
  const outcome = await inTransaction(ctx, async (tx) => {
    const row = await tx.manager.findOne(SandboxRefreshToken, {
      where: { tokenHash: sha256(input.refreshToken) },
      lock: { mode: 'pessimistic_write' },
    });
    if (!row || row.expiresAt.getTime() <= Date.now()) return { error: invalid() };
    const sandbox = await tx.manager.findOneBy(Sandbox, { tenantId: row.tenantId });
    if (!sandbox) return { error: invalid() };
    const scoped: RequestContext = { ...tx, tenantId: row.tenantId };
    if (row.usedAt) {
      // Reuse of a rotated credential: the token issued from it is revoked too (a stolen credential stops working).
      if (row.replacedByKeyId) await tx.manager.update(ApiKey, { id: row.replacedByKeyId }, { revokedAt: new Date() });
      await recordAudit(scoped, { action: 'sandbox.refresh_reused', resourceType: 'sandbox', resourceId: sandbox.id });
      return { error: sandboxError('refresh_token_reused', 'This refresh token was already used; the token issued from it is revoked.') };
    }
    if (row.apiKeyId) await tx.manager.update(ApiKey, { id: row.apiKeyId }, { revokedAt: new Date() });
    const issued = await issue(scoped, sandbox, row.scopes, Math.max(row.accessTtlSeconds, MIN_REFRESHED_TTL_SECONDS), true);
    await tx.manager.update(SandboxRefreshToken, { id: row.id }, { usedAt: new Date(), replacedByKeyId: issued.tokenId });
    return { issued };
  });
  // The reuse revocation commits before the 401 is answered.
  if ('error' in outcome) throw outcome.error;
  return outcome.issued!;
}
