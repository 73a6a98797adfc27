/**
 * Receiver-side verification of a webhook (docs/webhooks.md, "Verifying on the receiver"), for integrators to
 * copy or import. Depends on node:crypto only.
 *
 *   const result = verifyWebhookSignature({ rawBody, header: req.headers['x-service-signature'], secret });
 *   if (!result.ok) return res.status(400).end(result.reason);
 *
 * - `rawBody` must be the bytes as received (before any JSON parsing or re-serialising).
 * - The comparison is constant-time (crypto.timingSafeEqual over equal-length digests).
 * - A timestamp older (or further in the future) than `toleranceSeconds` (default 300 = 5 minutes)
 *   is rejected, which bounds replays of a captured request.
 * - `secret` may be a list: during a rotation the receiver accepts the old and the new secret.
 * - Several `v1=` entries in the header are accepted; any one matching suffices.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookVerifyFailure =
  'missing_header' | 'malformed_header' | 'no_v1_signature' | 'timestamp_outside_tolerance' | 'signature_mismatch';

export type WebhookVerifyResult = { ok: true; timestamp: number } | { ok: false; reason: WebhookVerifyFailure; message: string };

export interface VerifyWebhookInput {
  /** The request body exactly as received. */
  rawBody: string | Buffer;
  /** The X-Service-Signature header (undefined or an array when a framework hands it so). */
  header: string | string[] | undefined | null;
  /** The endpoint's signing secret, or several during a rotation. */
  secret: string | readonly string[];
  /** Seconds; default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** Unix seconds now (tests); default the clock. */
  now?: number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

function fail(reason: WebhookVerifyFailure, message: string): WebhookVerifyResult {
  return { ok: false, reason, message };
}

export function verifyWebhookSignature(input: VerifyWebhookInput): WebhookVerifyResult {
  const raw = Array.isArray(input.header) ? input.header[0] : input.header;
  if (typeof raw !== 'string' || raw.trim() === '') return fail('missing_header', 'The X-Service-Signature header is missing.');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of raw.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return fail('malformed_header', 'The signature header is not a list of key=value pairs.');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined)
        return fail('malformed_header', 'The signature header has no single valid t=<unix seconds>.');
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (/^[0-9a-f]{64}$/.test(value)) signatures.push(value);
    }
  }
  if (timestamp === undefined) return fail('malformed_header', 'The signature header has no t=<unix seconds>.');
  if (signatures.length === 0) return fail('no_v1_signature', 'The signature header has no v1 signature (64 lowercase hex digits).');
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance)
    return fail('timestamp_outside_tolerance', `The signature timestamp is more than ${tolerance} seconds away from now.`);
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  const received = signatures.map((hex) => Buffer.from(hex, 'hex'));
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(input.rawBody).digest();
    // Every candidate is compared (no early exit), each comparison in constant time.
    for (const candidate of received) if (timingSafeEqual(expected, candidate)) matched = true;
  }
  if (!matched) return fail('signature_mismatch', 'No v1 signature matches the body with the given secret.');
  return { ok: true, timestamp };
}
