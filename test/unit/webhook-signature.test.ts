/** The webhook signature: the sender's header and the receiver-side verifier shipped in api/webhooks/verify.ts. */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { signatureHeader, signatureHex } from '../../api/webhooks/signature';
import { verifyWebhookSignature } from '../../api/webhooks/verify';

describe('webhook signature', () => {
  const secret = 'whsec_test-secret';
  const body = '{"topic":"order.placed","deliveryId":"d","tenantId":"t","occurredAt":"2026-11-22T08:00:00.000Z","data":{"total":12.5}}';
  const t = 1_795_000_000;

  it('is t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signatureHex(secret, t, body))
      .to.equal(expected)
      .and.match(/^[0-9a-f]{64}$/);
    expect(signatureHeader(secret, body, t)).to.equal(`t=${t},v1=${expected}`);
    expect(signatureHeader(secret, Buffer.from(body), t)).to.equal(`t=${t},v1=${expected}`);
  });

  it('verifies a genuine signature within the tolerance, on either side of now', () => {
    const header = signatureHeader(secret, body, t);
    expect(verifyWebhookSignature({ rawBody: body, header, secret, now: t })).to.deep.equal({ ok: true, timestamp: t });
    expect(verifyWebhookSignature({ rawBody: Buffer.from(body), header, secret, now: t + 300 }).ok).to.equal(true);
    expect(verifyWebhookSignature({ rawBody: body, header, secret, now: t - 300 }).ok).to.equal(true);
    expect(verifyWebhookSignature({ rawBody: body, header: [header], secret, now: t }).ok).to.equal(true);
  });

  it('rejects a timestamp outside the tolerance (5 minutes by default, configurable)', () => {
    const header = signatureHeader(secret, body, t);
    expect(verifyWebhookSignature({ rawBody: body, header, secret, now: t + 301 })).to.include({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifyWebhookSignature({ rawBody: body, header, secret, now: t - 301 })).to.include({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifyWebhookSignature({ rawBody: body, header, secret, now: t + 301, toleranceSeconds: 600 }).ok).to.equal(true);
    expect(verifyWebhookSignature({ rawBody: body, header, secret, now: t + 31, toleranceSeconds: 30 })).to.include({
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('rejects a changed body, another secret, and a signature made for another timestamp', () => {
    const header = signatureHeader(secret, body, t);
    expect(verifyWebhookSignature({ rawBody: body.replace('12.5', '125'), header, secret, now: t })).to.include({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifyWebhookSignature({ rawBody: `${body} `, header, secret, now: t })).to.include({ reason: 'signature_mismatch' });
    expect(verifyWebhookSignature({ rawBody: body, header, secret: 'whsec_other', now: t })).to.include({ reason: 'signature_mismatch' });
    const moved = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifyWebhookSignature({ rawBody: body, header: moved, secret, now: t })).to.include({ reason: 'signature_mismatch' });
  });

  it('accepts any of several secrets (rotation on the receiver side) and any of several v1 entries', () => {
    const header = signatureHeader(secret, body, t);
    expect(verifyWebhookSignature({ rawBody: body, header, secret: ['whsec_new', secret], now: t }).ok).to.equal(true);
    const two = `${header},v1=${'0'.repeat(64)}`;
    expect(verifyWebhookSignature({ rawBody: body, header: two, secret, now: t }).ok).to.equal(true);
    expect(verifyWebhookSignature({ rawBody: body, header, secret: [], now: t })).to.include({ reason: 'signature_mismatch' });
  });

  it('explains malformed and missing headers', () => {
    const v1 = signatureHex(secret, t, body);
    const reason = (header: string | undefined | null): string | undefined => {
      const result = verifyWebhookSignature({ rawBody: body, header, secret, now: t });
      return result.ok ? undefined : result.reason;
    };
    expect(reason(undefined)).to.equal('missing_header');
    expect(reason(null)).to.equal('missing_header');
    expect(reason('  ')).to.equal('missing_header');
    expect(reason('garbage')).to.equal('malformed_header');
    expect(reason(`v1=${v1}`)).to.equal('malformed_header');
    expect(reason(`t=abc,v1=${v1}`)).to.equal('malformed_header');
    expect(reason(`t=${t},t=${t},v1=${v1}`)).to.equal('malformed_header');
    expect(reason(`t=${t}`)).to.equal('no_v1_signature');
    expect(reason(`t=${t},v1=${v1.toUpperCase()}`)).to.equal('no_v1_signature');
    expect(reason(`t=${t},v0=${v1}`)).to.equal('no_v1_signature');
    expect(reason(`t=${t},v1=${v1}`)).to.equal(undefined);
    expect(reason(` t=${t} , v1=${v1} `)).to.equal(undefined);
  });
});
