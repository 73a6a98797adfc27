/**
 * The token simulator of the sandbox, to rehearse the OAuth flow, scope checks, expired tokens and
 * refresh. A simulated token is a store API key of the sandbox with the scopes and lifetime the
 * integrator chooses, a negative lifetime giving a token that is already expired; it
 * goes through the same authentication as every token, so an expired one answers 401
 * invalid_api_key and one without the operation's scope 403 insufficient_scope.
 *
 * What a caller may mint is bounded by its own credential, so the simulator never widens access:
 * - scopes: a subset of the calling token's own (`*` may mint anything; a token without `*` can never
 *   mint `*`); any other scope answers 403 scope_not_held. A signed-in member needs the owner or admin
 *   role (those who may create API keys with any scope) and may then mint any scope.
 * - lifetime: at most TOKEN_TTL_MAX (a validation bound, 400) and never past the calling credential's
 *   own expiry (an API key's `expiresAt`, a member's session end); beyond it 403
 *   token_lifetime_exceeded. The sandbox token itself never expires, so it is bounded by the cap only.
 *
 * With `refresh: true` the token comes with a refresh credential (`rt_…`, valid 30 days, and never
 * past the minting credential's expiry). Trading it at POST /sandbox/tokens/refresh (no
 * Authorization needed, like an OAuth refresh grant) revokes the old token and answers a new token
 * with the same scopes and lifetime (at least one hour when the original was issued expired; never
 * past the family's ceiling, `notAfter`) and a new refresh credential. The credentials of one chain
 * form a family (`family_id`, the first credential's id): they rotate and work once, and presenting a
 * credential that was already traded answers 401 refresh_token_reused and revokes the whole family,
 * every token and credential descended from the first one, recorded in the audit log as
 * `sandbox.refresh_reused`. A reset of the sandbox removes every simulated token.
 */
import { In, IsNull } from 'typeorm';
import { ApiKey, Sandbox, SandboxRefreshToken, Session } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { randomToken, sha256 } from '../auth/secrets';
import { newKeyPrefix } from '../api-keys/api-keys.service';
import { ALL_SCOPES, knownScopes } from '../api-keys/api-keys.scopes';
import { requireTenantUser, TENANT_ADMINS } from '../../domain/store-access';
import { UnauthorizedError, ValidationError } from '../../lib/errors';
import { sandboxNotFound } from './sandbox.service';
import { sandboxError } from './sandbox.errors';
import type { IssueTokenDto } from './sandbox.schemas';
import type { InputOf } from '../http/typed-schema';

export const REFRESH_TTL_SECONDS = 30 * 24 * 3_600;
export const MIN_REFRESHED_TTL_SECONDS = 3_600;
export const REFRESH_LIMIT = { limit: 60, windowSeconds: 60 };

export type IssueTokenInput = InputOf<typeof IssueTokenDto>;

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

/** The refresh credential to issue with a token: its family (absent: a new one) and the family's ceiling. */
interface RefreshPlan {
  familyId?: string;
  notAfter: Date | null;
}

const earliest = (a: Date, b: Date | null): Date => (b && b.getTime() < a.getTime() ? b : a);

async function issue(
  tx: RequestContext,
  sandbox: Sandbox,
  scopes: string[],
  ttlSeconds: number,
  refresh: RefreshPlan | null,
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
  if (refresh) {
    refreshToken = `rt_${randomToken(32)}`;
    refreshExpiresAt = earliest(new Date(now + REFRESH_TTL_SECONDS * 1000), refresh.notAfter);
    const refreshId = uuidv7();
    await tx.manager.insert(SandboxRefreshToken, {
      id: refreshId,
      tenantId: sandbox.tenantId,
      tokenHash: sha256(refreshToken),
      apiKeyId: id,
      scopes,
      accessTtlSeconds: ttlSeconds,
      expiresAt: refreshExpiresAt,
      usedAt: null,
      familyId: refresh.familyId ?? refreshId,
      revokedAt: null,
      notAfter: refresh.notAfter,
      createdAt: new Date(now),
    });
  }
  await recordAudit(tx, {
    action: 'api_key.create',
    resourceType: 'api_key',
    resourceId: id,
    tenantId: sandbox.tenantId,
    after: { name: 'Simulated token', prefix, scopes, expiresAt, refresh: refresh !== null },
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

/**
 * What the calling credential may hand on: its scopes (null: any) and its own expiry (null: none).
 * An API key (the sandbox token, a simulated token) has its scopes and `expiresAt`; a signed-in member
 * must be an owner or admin, who may mint any scope, until the end of the session.
 */
async function mintingLimits(ctx: RequestContext): Promise<{ scopes: readonly string[] | null; expiresAt: Date | null }> {
  if (ctx.actor.type === 'api_key') {
    const key = ctx.actor.id ? await ctx.manager.findOneBy(ApiKey, { id: ctx.actor.id }) : null;
    if (!key) throw sandboxNotFound();
    return { scopes: key.scopes.includes(ALL_SCOPES) ? null : key.scopes, expiresAt: key.expiresAt };
  }
  requireTenantUser(ctx, TENANT_ADMINS);
  const session = ctx.actor.sessionId ? await ctx.manager.findOneBy(Session, { id: ctx.actor.sessionId }) : null;
  return { scopes: null, expiresAt: session?.expiresAt ?? null };
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
    const limits = await mintingLimits(tx);
    const held = limits.scopes;
    if (held) {
      const notHeld = scopes.filter((s) => !held.includes(s));
      if (notHeld.length)
        throw sandboxError(
          'scope_not_held',
          `A token can only mint scopes it holds itself; the calling token lacks ${notHeld.join(', ')}.`,
          notHeld.map((s) => ({ path: 'body.scopes', message: `${s} is not a scope of the calling token` })),
        );
    }
    if (limits.expiresAt) {
      const remaining = Math.floor((limits.expiresAt.getTime() - Date.now()) / 1000);
      if (input.expiresInSeconds > remaining)
        throw sandboxError(
          'token_lifetime_exceeded',
          `A minted token cannot outlive the calling credential: expiresInSeconds may be at most ${Math.max(remaining, 0)} (its remaining lifetime).`,
          [{ path: 'body.expiresInSeconds', message: `must be at most ${Math.max(remaining, 0)}` }],
        );
    }
    return issue(tx, sandbox, scopes, input.expiresInSeconds, input.refresh ? { notAfter: limits.expiresAt } : null);
  });
}

/**
 * Revokes a refresh family: every credential of it not yet traded, and every simulated token it
 * issued (the tokens minted with and traded for its credentials). Returns how many of each were
 * revoked (normally one of each: the live end of the chain).
 */
async function revokeFamily(tx: RequestContext, tenantId: string, familyId: string): Promise<{ tokens: number; credentials: number }> {
  const members = await tx.manager.find(SandboxRefreshToken, {
    where: [
      { tenantId, familyId },
      { tenantId, id: familyId },
    ],
    lock: { mode: 'pessimistic_write' },
  });
  const keyIds = [...new Set(members.flatMap((m) => [m.apiKeyId, m.replacedByKeyId]).filter((id): id is string => id !== null))];
  const now = new Date();
  const tokens = keyIds.length
    ? ((await tx.manager.update(ApiKey, { tenantId, id: In(keyIds), revokedAt: IsNull() }, { revokedAt: now })).affected ?? 0)
    : 0;
  const credentials =
    (
      await tx.manager.update(
        SandboxRefreshToken,
        { tenantId, id: In(members.map((m) => m.id)), usedAt: IsNull(), revokedAt: IsNull() },
        { revokedAt: now },
      )
    ).affected ?? 0;
  return { tokens, credentials };
}

export async function refreshSimulatedToken(ctx: RequestContext, input: { refreshToken: string }): Promise<IssuedToken> {
  await servicesOf(ctx).rateLimiter.hit(`sandbox:refresh:${ctx.client?.ip ?? 'unknown'}`, REFRESH_LIMIT);
  const invalid = (): UnauthorizedError => sandboxError('invalid_refresh_token', 'The refresh token is invalid, expired or revoked.');
  const outcome = await inTransaction(ctx, async (tx) => {
    const found = await tx.manager.findOne(SandboxRefreshToken, {
      where: { tokenHash: sha256(input.refreshToken) },
      select: { id: true, familyId: true },
    });
    if (!found) return { error: invalid() };
    const familyId = found.familyId ?? found.id;
    // Everything done to one family runs one at a time, serialised on its first credential's row (locked
    // before any other row of the family, so two trades cannot deadlock): a reuse then sees every credential
    // a concurrent rotation committed, and revokes it too.
    if (familyId !== found.id)
      await tx.manager.findOne(SandboxRefreshToken, { where: { id: familyId }, select: { id: true }, lock: { mode: 'pessimistic_write' } });
    const row = await tx.manager.findOne(SandboxRefreshToken, { where: { id: found.id }, lock: { mode: 'pessimistic_write' } });
    if (!row) return { error: invalid() };
    const sandbox = await tx.manager.findOneBy(Sandbox, { tenantId: row.tenantId });
    if (!sandbox) return { error: invalid() };
    const scoped: RequestContext = { ...tx, tenantId: row.tenantId };
    if (row.usedAt) {
      // A credential that was already traded is presented again: it was copied, so the whole family
      // (the token traded for it and everything descended from that) stops working. Checked before
      // expiry, so a replayed old credential still revokes its family.
      const revoked = await revokeFamily(tx, row.tenantId, familyId);
      await recordAudit(scoped, {
        action: 'sandbox.refresh_reused',
        resourceType: 'sandbox',
        resourceId: sandbox.id,
        after: { familyId, revokedApiKeys: revoked.tokens, revokedCredentials: revoked.credentials, ip: ctx.client?.ip ?? null },
      });
      servicesOf(ctx).logger.warn(
        { sandboxId: sandbox.id, familyId, ip: ctx.client?.ip, ...revoked },
        'sandbox: a used refresh credential was presented again; its refresh family is revoked',
      );
      return {
        error: sandboxError(
          'refresh_token_reused',
          'This refresh token was already used; every token and refresh token of its chain is revoked.',
        ),
      };
    }
    if (row.revokedAt || row.expiresAt.getTime() <= Date.now()) return { error: invalid() };
    const ceiling = row.notAfter ? Math.floor((row.notAfter.getTime() - Date.now()) / 1000) : Infinity;
    if (ceiling <= 0) return { error: invalid() };
    if (row.apiKeyId) await tx.manager.update(ApiKey, { id: row.apiKeyId }, { revokedAt: new Date() });
    const ttl = Math.min(Math.max(row.accessTtlSeconds, MIN_REFRESHED_TTL_SECONDS), ceiling);
    const issued = await issue(scoped, sandbox, row.scopes, ttl, { familyId, notAfter: row.notAfter });
    await tx.manager.update(SandboxRefreshToken, { id: row.id }, { usedAt: new Date(), replacedByKeyId: issued.tokenId });
    return { issued };
  });
  // The reuse revocation commits before the 401 is answered.
  if ('error' in outcome) throw outcome.error;
  return outcome.issued!;
}
