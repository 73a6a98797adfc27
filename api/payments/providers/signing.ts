/**
 * Signatures of the payment simulator (docs/payments.md, "Callbacks and signatures"). Each provider
 * has its own secret, derived from APP_SECRET (HKDF, purpose `payment-simulator:<provider>`).
 *
 * - Callbacks: header `X-Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<raw body>">`;
 *   accepted within CALLBACK_TOLERANCE_SECONDS (5 minutes) of the receiver's clock, either way.
 * - 3-D Secure returns: the query carries `t` and `sig`, an HMAC over the other parameters sorted
 *   by name (`name=value` joined by `&`, then `.<t>`); accepted within RETURN_TOLERANCE_SECONDS.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../auth/secrets';
import type { PaymentProviderName } from './port';

export const CALLBACK_TOLERANCE_SECONDS = 300;
export const RETURN_TOLERANCE_SECONDS = 30 * 60;
export const SIGNATURE_HEADER = 'x-provider-signature';

const secrets = new Map<string, Buffer>();

export function providerSecret(appSecret: string, provider: PaymentProviderName): Buffer {
  const id = `${provider}\u0000${appSecret}`;
  let key = secrets.get(id);
  if (!key) {
    key = deriveKey(appSecret, `payment-simulator:${provider}`);
    secrets.set(id, key);
  }
  return key;
}

const hmac = (secret: Buffer, text: string | Buffer): string => createHmac('sha256', secret).update(text).digest('hex');

function sameHex(a: string, b: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(a) || !/^[0-9a-f]{64}$/.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

export function signCallback(secret: Buffer, rawBody: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const signed = Buffer.concat([Buffer.from(`${nowSeconds}.`), rawBody]);
  return `t=${nowSeconds},v1=${hmac(secret, signed)}`;
}

/** Why a callback signature header fails, or undefined when it holds. */
export function callbackSignatureProblem(
  secret: Buffer,
  header: string | undefined,
  rawBody: Buffer,
  nowSeconds = Math.floor(Date.now() / 1000),
): string | undefined {
  if (!header) return `the ${SIGNATURE_HEADER} header is missing`;
  const parts = new Map(
    header.split(',').map((p) => {
      const at = p.indexOf('=');
      return [p.slice(0, at).trim(), p.slice(at + 1).trim()] as const;
    }),
  );
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !/^\d{1,12}$/.test(t) || !v1) return `the ${SIGNATURE_HEADER} header is malformed`;
  if (Math.abs(nowSeconds - Number(t)) > CALLBACK_TOLERANCE_SECONDS) return 'the signature timestamp is outside the 5-minute tolerance';
  const expected = hmac(secret, Buffer.concat([Buffer.from(`${t}.`), rawBody]));
  return sameHex(v1, expected) ? undefined : 'the signature does not match';
}

function returnBase(params: Record<string, string>, t: string): string {
  return (
    Object.keys(params)
      .sort()
      .map((k) => `${k}=${params[k]}`)
      .join('&') + `.${t}`
  );
}

/** The query string of a 3-D Secure return: `params` plus `t` and `sig`. */
export function signReturnQuery(secret: Buffer, params: Record<string, string>, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const t = String(nowSeconds);
  const query = new URLSearchParams({ ...params, t, sig: hmac(secret, returnBase(params, t)) });
  return query.toString();
}

/** The signed parameters of a 3-D Secure return (without t and sig), or a reason it fails. */
export function verifyReturnQuery(
  secret: Buffer,
  query: Record<string, string | undefined>,
  nowSeconds = Math.floor(Date.now() / 1000),
): { params: Record<string, string> } | { problem: string } {
  const { t, sig, ...rest } = query;
  if (!t || !sig || !/^\d{1,12}$/.test(t)) return { problem: 'the return is not signed' };
  if (Math.abs(nowSeconds - Number(t)) > RETURN_TOLERANCE_SECONDS) return { problem: 'the return is too old' };
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) params[k] = v;
  return sameHex(sig, hmac(secret, returnBase(params, t))) ? { params } : { problem: 'the return signature does not match' };
}
