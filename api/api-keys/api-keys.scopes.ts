/**
 * The scopes an API key can hold: `<tag>:read` and `<tag>:write` for the tag of every merchant
 * operation (computed from the route tables with the authenticator's scopeFor, so the two cannot
 * disagree), and `*` for all of them.
 *
 * The route tables use this area's schemas, which use this module; so the tables are handed in by
 * the application when it is built (registerScopesOf, app/http-app.ts), instead of this module
 * importing them and closing a cycle.
 */
import { scopeFor } from '../auth/authenticator';
import type { RouteDef } from '../http/route';

export const ALL_SCOPES = '*';

/** `<tag>:read|write` or `*`; membership of the known set is checked separately. */
export const SCOPE_PATTERN = /^(?:\*|[a-z0-9-]+:(?:read|write))$/;

let known: ReadonlySet<string> | undefined;

/** Computes the known scopes from every operation of the application (called once, at start). */
export function registerScopesOf(routes: readonly RouteDef[]): void {
  known = new Set([
    ALL_SCOPES,
    ...routes.filter((route) => route.auth === 'merchant' || route.auth === 'merchant_or_platform').map((route) => scopeFor(route)),
  ]);
}

/** Every scope a merchant operation can need, plus `*`. */
export function knownScopes(): ReadonlySet<string> {
  if (!known) throw new Error('the API key scopes are not registered yet (registerScopesOf runs when the application is built)');
  return known;
}
