/**
 * The webhook signature (docs/webhooks.md), sender side:
 * `X-Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">`.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const TOPIC_HEADER = 'X-Service-Topic';
export const DELIVERY_ID_HEADER = 'X-Service-Delivery-Id';

/** Lowercase hex HMAC-SHA256 of `<t>.<rawBody>` with `secret`. */
export function signatureHex(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value for `rawBody` signed at `timestamp` (unix seconds). */
export function signatureHeader(secret: string, rawBody: string | Buffer, timestamp: number = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${signatureHex(secret, timestamp, rawBody)}`;
}
