/**
 * Turns credentials into an actor for the route pipeline (api/http/auth.ts):
 * - `Authorization: Bearer <access token>`: the JWT must verify and its session must be live (a
 *   revoked session stops its tokens at once, because the session is read on every request).
 * - `X-API-Key: sk_…` (or `Authorization: Bearer sk_…`): a store API key, for merchant routes only,
 *   allowed by its scopes (`<tag>:read` for GET, `<tag>:write` otherwise) on its own store only.
 */
import type Koa from 'koa';
import type { DataSource } from 'typeorm';
import { ForbiddenError, UnauthorizedError } from '../../lib/errors';
import type { Authenticated, Authenticator } from '../http/auth';
import type { AuthRequirement, RouteDef } from '../http/route';
import { ApiKey, Session, Tenant, User } from '../../storage/entities';
import { verifyAccessToken } from './access-tokens';
import { constantTimeEqual, sha256 } from './secrets';
import { authError } from './auth.errors';
import { countApiCall, refuseSuspendedWrite } from '../billing/suspension';

export const API_KEY_PREFIX = 'sk_';

/** The scope an API key needs for a route: `<tag>:read` for GET, `<tag>:write` otherwise. */
export function scopeFor(route: Pick<RouteDef, 'tag' | 'method'>): string {
  return `${route.tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}:${route.method === 'GET' ? 'read' : 'write'}`;
}

function credentials(ctx: Koa.Context): { kind: 'jwt' | 'api_key'; value: string } | undefined {
  const apiKey = ctx.get('X-API-Key');
  if (apiKey) return { kind: 'api_key', value: apiKey.trim() };
  const header = ctx.get('Authorization');
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) return undefined;
  const token = match[1]!;
  return { kind: token.startsWith(API_KEY_PREFIX) ? 'api_key' : 'jwt', value: token };
}

export class PlatformAuthenticator implements Authenticator {
  constructor(
    private readonly dataSource: DataSource,
    private readonly appSecret: string,
  ) {}

  async authenticate(ctx: Koa.Context, requirement: Exclude<AuthRequirement, 'public'>, route: RouteDef): Promise<Authenticated> {
    const presented = credentials(ctx);
    if (!presented) throw new UnauthorizedError();
    const authenticated =
      presented.kind === 'api_key'
        ? await this.apiKey(presented.value, requirement, route)
        : await this.user(presented.value, requirement, route);
    // A suspended tenant's merchant writes are refused (docs/billing.md, "Suspension").
    if (requirement === 'merchant' || requirement === 'merchant_or_platform')
      await refuseSuspendedWrite(this.dataSource, authenticated.tenantId, route);
    return authenticated;
  }

  private async user(token: string, requirement: Exclude<AuthRequirement, 'public'>, route: RouteDef): Promise<Authenticated> {
    const claims = await verifyAccessToken(this.appSecret, token);
    if (claims === 'expired') throw authError('token_expired', 'The access token has expired; refresh it.');
    if (claims === 'invalid') throw authError('invalid_token', 'The access token is invalid.', [], 401);
    const session = await this.dataSource.manager.findOneBy(Session, { id: claims.sid });
    if (!session || session.userId !== claims.sub || session.revokedAt || session.expiresAt.getTime() <= Date.now()) {
      throw authError('session_revoked', 'The session of this token has ended; sign in again.');
    }
    const user = await this.dataSource.manager.findOneBy(User, { id: claims.sub });
    if (!user) throw authError('invalid_token', 'The access token is invalid.', [], 401);
    // Keep "last seen" fresh without a write per request.
    if (Date.now() - session.lastSeenAt.getTime() > 60_000) {
      void this.dataSource.manager.update(Session, { id: session.id }, { lastSeenAt: new Date() }).catch(() => undefined);
    }
    const actor = {
      type: 'user' as const,
      id: user.id,
      sessionId: session.id,
      tenantRole: user.tenantRole ?? undefined,
      platformRole: user.platformRole ?? undefined,
    };
    if (requirement === 'platform' && !user.platformRole) throw new ForbiddenError('This operation is for platform staff.');
    if (requirement === 'platform' && route.platformRoles && !route.platformRoles.includes(user.platformRole!))
      throw authError('platform_role_required', `This operation is for ${route.platformRoles.join(' or ')}.`);
    if (requirement === 'merchant' && !user.tenantId) throw new ForbiddenError('This operation needs a member of a tenant.');
    if (requirement === 'merchant_or_platform' && !user.tenantId) {
      // Not a tenant member: only platform staff with one of the row's roles (acting platform-wide).
      if (!user.platformRole) throw new ForbiddenError('This operation needs a member of a tenant or platform staff.');
      if (route.platformRoles && !route.platformRoles.includes(user.platformRole))
        throw authError('platform_role_required', `This operation is for tenant members or ${route.platformRoles.join(' or ')}.`);
    }
    if (requirement === 'partner') {
      const tenant = user.tenantId ? await this.dataSource.manager.findOneBy(Tenant, { id: user.tenantId }) : null;
      if (tenant?.kind !== 'partner') throw new ForbiddenError('This operation is for partner accounts.');
    }
    return { actor, tenantId: user.tenantId ?? undefined };
  }

  private async apiKey(secret: string, requirement: Exclude<AuthRequirement, 'public'>, route: RouteDef): Promise<Authenticated> {
    // sk_<prefix id>_<secret>: the prefix finds the row, the hash of the whole key proves it.
    const prefix = secret.split('_').slice(0, 2).join('_');
    const key = prefix.length > API_KEY_PREFIX.length ? await this.dataSource.manager.findOneBy(ApiKey, { prefix }) : null;
    const valid = key !== null && constantTimeEqual(sha256(secret), key.secretHash);
    if (!key || !valid || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) {
      throw authError('invalid_api_key', 'The API key is invalid, expired or revoked.');
    }
    if (requirement !== 'merchant' && requirement !== 'merchant_or_platform')
      throw authError('api_key_not_allowed', 'API keys cannot call this operation.');
    const needed = scopeFor(route);
    if (!key.scopes.includes(needed) && !key.scopes.includes('*')) {
      throw authError('insufficient_scope', `The API key lacks the scope ${needed}.`);
    }
    void this.dataSource.manager.update(ApiKey, { id: key.id }, { lastUsedAt: new Date() }).catch(() => undefined);
    countApiCall(this.dataSource, key.tenantId); // the usage's apiCalls (docs/billing.md, "Usage")
    return { actor: { type: 'api_key', id: key.id, storeId: key.storeId, scopes: key.scopes }, tenantId: key.tenantId };
  }
}
