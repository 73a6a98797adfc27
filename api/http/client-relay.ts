/**
 * The storefront (web/) renders its pages by calling this platform's own HTTP API on a shopper's
 * behalf. Those calls come from the platform's own address, so without help every per-client limit
 * (photo searches per minute, for one) would lump all shoppers of all shops into one client. The
 * storefront therefore names the shopper's address in a header, vouched for by a key derived from
 * APP_SECRET: every process of the platform accepts it, nobody without the secret can forge it. A
 * call without a valid key keeps the address Koa sees (the socket's, or X-Forwarded-For behind a
 * trusted proxy).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type Koa from 'koa';

export const RELAYED_IP_HEADER = 'X-Relayed-Client-Ip';
export const RELAY_KEY_HEADER = 'X-Relay-Key';

/** The key for `appSecret`, derived once per secret (it is constant, and requests are many). */
const relayKeys = new Map<string, string>();
function relayKey(appSecret: string): string {
  let key = relayKeys.get(appSecret);
  if (key === undefined) {
    key = createHmac('sha256', appSecret).update('storefront-client-relay:v1').digest('hex');
    relayKeys.set(appSecret, key);
  }
  return key;
}

/** Headers with which the storefront's API calls carry the shopper's address. */
export function relayHeaders(appSecret: string, clientIp: string): Record<string, string> {
  return isIP(clientIp) ? { [RELAYED_IP_HEADER]: clientIp, [RELAY_KEY_HEADER]: relayKey(appSecret) } : {};
}

/**
 * Takes the relayed address as the client's when the key is genuine (constant-time comparison), and
 * leaves in `ctx.state.relayHeaders` the headers with which this request's own API calls (the
 * storefront's) pass its client address on.
 */
export function relayedClientIp(appSecret: string): Koa.Middleware {
  const expected = Buffer.from(relayKey(appSecret));
  return async (ctx, next) => {
    const key = ctx.get(RELAY_KEY_HEADER);
    const ip = ctx.get(RELAYED_IP_HEADER);
    if (key && ip && isIP(ip)) {
      const given = Buffer.from(key);
      if (given.length === expected.length && timingSafeEqual(given, expected)) ctx.request.ip = ip;
    }
    // Only the storefront's own API calls read it; built on first use.
    let headers: Record<string, string> | undefined;
    Object.defineProperty(ctx.state, 'relayHeaders', {
      configurable: true,
      enumerable: false,
      get: () => (headers ??= relayHeaders(appSecret, ctx.ip)),
    });
    await next();
  };
}
