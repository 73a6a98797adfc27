/** Short-lived access tokens: HS256 JWTs naming the user, tenant and session. */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { deriveKey } from './secrets';

export interface AccessClaims {
  /** user id */
  sub: string;
  /** session id */
  sid: string;
  /** tenant id, or null for platform staff without a tenant */
  tid: string | null;
}

const ISSUER = 'commerce-platform';
const AUDIENCE = 'commerce-api';
const keys = new Map<string, Uint8Array>();

function signingKey(appSecret: string): Uint8Array {
  let key = keys.get(appSecret);
  if (!key) {
    key = new Uint8Array(deriveKey(appSecret, 'access-token-hs256'));
    keys.set(appSecret, key);
  }
  return key;
}

export async function signAccessToken(appSecret: string, claims: AccessClaims, ttlSeconds: number, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new SignJWT({ sid: claims.sid, tid: claims.tid, typ: 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(signingKey(appSecret));
}

export type AccessTokenFailure = 'expired' | 'invalid';

/** The claims of a valid token, or why it is not valid. Only HS256 is accepted (no `alg: none`). */
export async function verifyAccessToken(appSecret: string, token: string): Promise<AccessClaims | AccessTokenFailure> {
  try {
    const { payload } = await jwtVerify(token, signingKey(appSecret), { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    if (payload.typ !== 'access' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return 'invalid';
    return { sub: payload.sub, sid: payload.sid, tid: typeof payload.tid === 'string' ? payload.tid : null };
  } catch (error) {
    return error instanceof joseErrors.JWTExpired ? 'expired' : 'invalid';
  }
}
