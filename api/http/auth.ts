/**
 * The authentication hook of the route pipeline. The route table says what each operation needs
 * (`auth`); an Authenticator turns the request's credentials into an Actor and tenant. The accounts
 * area installs the real one (bearer JWTs, API keys, sandbox tokens); until then every protected
 * operation is refused with 401, never silently opened.
 */
import type Koa from 'koa';
import { UnauthorizedError } from './errors';
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

export async function authenticateRequest(ctx: Koa.Context, route: RouteDef): Promise<Authenticated> {
  if (route.auth === 'public') return { actor: { type: 'anonymous' } };
  return current.authenticate(ctx, route.auth, route);
}
