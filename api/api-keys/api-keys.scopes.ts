/**
 * The scopes an API key can hold: `<tag>:read` and `<tag>:write` for the tag of every merchant
 * operation (computed from the route tables with the authenticator's scopeFor, so the two cannot
 * disagree), and `*` for all of them.
 *
 * The route tables import this area's schemas, which use this module; so the tables are required on
 * first use (at request time, when every module has loaded), never at import time, where the cycle
 * would hand one of the modules a half-built export.
 */
import { scopeFor } from '../auth/authenticator';

export const ALL_SCOPES = '*';

/** `<tag>:read|write` or `*`; membership of the known set is checked separately. */
export const SCOPE_PATTERN = /^(?:\*|[a-z0-9-]+:(?:read|write))$/;

let known: ReadonlySet<string> | undefined;

/** Every scope a merchant operation can need, plus `*`. */
export function knownScopes(): ReadonlySet<string> {
  if (!known) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { allRoutes } = require('../routes') as typeof import('../routes');
    known = new Set([ALL_SCOPES, ...allRoutes.filter((route) => route.auth === 'merchant').map((route) => scopeFor(route))]);
  }
  return known;
}
