/**
 * The payment simulator's pieces without a server: callback and return signatures (tolerance,
 * tampering), installment amounts in exact decimals, the idempotency fingerprint, and the
 * transition table's consistency.
 */
import { expect } from 'chai';
import {
  callbackSignatureProblem,
  providerSecret,
  signCallback,
  signReturnQuery,
  verifyReturnQuery,
} from '../../api/payments/providers/signing';
import { installmentOptions } from '../../api/payments/providers/installments';
import { canonicalJson, fingerprintOf } from '../../storage/idempotency';
import { PAYMENT_STATUSES, PAYMENT_TRANSITIONS } from '../../api/payments/payment-states';

const SECRET = 'x'.repeat(40);

describe('payment simulator signatures', () => {
  const secret = providerSecret(SECRET, 'stripe');

  it('derives one secret per provider', () => {
    expect(providerSecret(SECRET, 'iyzico').equals(secret)).to.equal(false);
    expect(providerSecret(SECRET, 'stripe').equals(secret)).to.equal(true);
  });

  it('accepts a callback signed over the raw body within 5 minutes, and nothing else', () => {
    const body = Buffer.from('{"eventId":"evt_1"}');
    const now = 1_800_000_000;
    const header = signCallback(secret, body, now);
    expect(callbackSignatureProblem(secret, header, body, now + 299)).to.equal(undefined);
    expect(callbackSignatureProblem(secret, header, body, now + 301)).to.match(/tolerance/);
    expect(callbackSignatureProblem(secret, header, Buffer.from('{"eventId":"evt_2"}'), now)).to.match(/does not match/);
    expect(callbackSignatureProblem(providerSecret(SECRET, 'adyen'), header, body, now)).to.match(/does not match/);
    expect(callbackSignatureProblem(secret, undefined, body, now)).to.match(/missing/);
    expect(callbackSignatureProblem(secret, 'v1=abc', body, now)).to.match(/malformed/);
  });

  it('signs a 3-D Secure return over its sorted parameters', () => {
    const now = 1_800_000_000;
    const query = Object.fromEntries(new URLSearchParams(signReturnQuery(secret, { reference: 'r', outcome: 'AUTHORIZED' }, now)));
    expect(verifyReturnQuery(secret, query, now + 60)).to.deep.equal({ params: { reference: 'r', outcome: 'AUTHORIZED' } });
    expect(verifyReturnQuery(secret, { ...query, outcome: 'CAPTURED' }, now)).to.have.property('problem');
    expect(verifyReturnQuery(secret, { ...query, extra: '1' }, now)).to.have.property('problem');
    expect(verifyReturnQuery(secret, query, now + 31 * 60)).to.deep.equal({ problem: 'the return is too old' });
  });
});

describe('payment installments', () => {
  it('puts the rounding difference on the last installment, in the currency minor unit', () => {
    const twelve = installmentOptions('411111', '99.99', 'EUR').find((o) => o.count === 12)!;
    // 99.99 × 1.10 = 109.989 → 109.99; 109.99 / 12 = 9.1658… → 9.16; the last is 109.99 − 9.16 × 11 = 9.23.
    expect(twelve).to.deep.equal({ count: 12, perInstallment: '9.16', total: '109.99' });
    expect(installmentOptions('411111', '1000', 'JPY').find((o) => o.count === 3)).to.deep.equal({
      count: 3,
      perInstallment: '341',
      total: '1025',
    });
    expect(installmentOptions('999999', '10', 'EUR')).to.deep.equal([{ count: 1, perInstallment: '10', total: '10' }]);
  });
});

describe('idempotency fingerprints', () => {
  it('ignore key order and undefined fields, and tell other values apart', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: undefined } })).to.equal('{"a":{"d":[1,2]},"b":1}');
    expect(fingerprintOf({ a: 1, b: 2 })).to.equal(fingerprintOf({ b: 2, a: 1 }));
    expect(fingerprintOf({ a: 1 })).to.not.equal(fingerprintOf({ a: 1.5 }));
  });
});

describe('payment transition table', () => {
  it('names only known states and never leaves VOIDED, DECLINED or REFUNDED', () => {
    for (const [action, { from, to }] of Object.entries(PAYMENT_TRANSITIONS)) {
      for (const s of [...from, ...to]) expect(PAYMENT_STATUSES, action).to.include(s);
      for (const final of ['VOIDED', 'DECLINED', 'REFUNDED'] as const) expect(from, action).to.not.include(final);
    }
  });
});
