/**
 * The authentication hook of the route pipeline. The route table says what each operation needs
 * (`auth`); an Authenticator turns the request's credentials into an Actor and tenant. The accounts
 * area installs the real one (bearer JWTs, API keys, sandbox tokens); until then every protected
 * operation is refused with 401, never silently opened.
 *
 * Public routes need no token and never refuse a request because of one. When a public request
 * carries `Authorization: Bearer <access token>`, the token is checked like a user route would check
 * it: a valid token of a signed-in user (of any tenant) makes the actor that user (`type: 'user'`, id
 * and session only, no tenant and no roles, so a public route still acts for no tenant); a missing,
 * malformed, expired or revoked token, or an API key, leaves the request anonymous. Public reads use
 * this only to know whether the visitor is signed in (a store's price visibility SIGNED_IN).
 */
import type Koa from 'koa';
import { UnauthorizedError } from '../../lib/errors';
import type { AuthRequirement, RouteDef } from './route';
import type { Actor } from '../../storage/request-context';

export interface Authenticated {
  actor: Actor;
  tenantId?: string;
}

export interface Authenticator {
  /** Resolves the caller for a protected route, or throws UnauthorizedError/ForbiddenError. */
  authenticate(ctx: Koa.Context, requirement: Exclude<AuthRequirement, 'public'>, route: RouteDef): Promise<Authenticated>;
}

const refuseAll: Authenticator = {
  async authenticate() {
    throw new UnauthorizedError('Authentication is not available in this build.');
  },
};

let current: Authenticator = refuseAll;

export function setAuthenticator(authenticator: Authenticator): void {
  current = authenticator;
}

const BEARER = /^Bearer\s+\S+$/i;

/** A public request's actor: the signed-in user of a valid bearer access token, otherwise anonymous (never an error). */
async function optionalUser(ctx: Koa.Context, route: RouteDef): Promise<Authenticated> {
  const anonymous: Authenticated = { actor: { type: 'anonymous' } };
  if (!BEARER.test(ctx.get('Authorization')) || ctx.get('X-API-Key')) return anonymous;
  try {
    const { actor } = await current.authenticate(ctx, 'user', route);
    return actor.type === 'user' ? { actor: { type: 'user', id: actor.id, sessionId: actor.sessionId } } : anonymous;
  } catch {
    return anonymous;
  }
}

export async function authenticateRequest(ctx: Koa.Context, route: RouteDef): Promise<Authenticated> {
  if (route.auth === 'public') return optionalUser(ctx, route);
  return current.authenticate(ctx, route.auth, route);
}
