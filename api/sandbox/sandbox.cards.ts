/**
 * Test payment cards of the sandbox: cards of three payment providers, preloaded for success, 3DS
 * challenge, fraud and refund flows (docs/accounts.md, "Sandbox"). Static fixtures: they are the
 * same in every sandbox, move no money, and are what the payment simulator (api/payments/providers/simulator.ts) answers for. The numbers
 * pass the Luhn check; any future expiry date and any CVC work.
 */
export type TestCardFlow = 'SUCCESS' | 'THREE_DS_CHALLENGE' | 'FRAUD_DECLINE' | 'REFUND';

export interface TestCard {
  provider: string;
  flow: TestCardFlow;
  brand: string;
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvc: string;
  holderName: string;
  /** What the sandbox payment answers for this card. */
  outcome: string;
  /** For 3-D Secure: the one-time code the challenge page accepts. */
  threeDsCode: string | null;
}

const EXPIRY_YEAR = 2030;

/** What the payment simulator does with each flow (api/payments/providers/simulator.ts; docs/payments.md, "The simulator"). */
const SUCCESS_OUTCOME =
  'Authorised (captured at once when the charge asks for it, as plan and app purchases do); captures, partial ones included, and refunds succeed.';
const FRAUD_OUTCOME = 'Declined by the fraud check (decline code fraud_suspected); nothing is authorised or captured.';
const REFUND_OUTCOME =
  'Authorised (captured at once when the charge asks for it); a full or partial refund of what was captured succeeds and emits payment.refunded.';
const IYZICO_MANUAL =
  'Except on iyzico after a partial capture (less captured than authorised): a refund then answers MANUAL_REFUND_REQUIRED and waits on the payment as pendingManualRefund until confirm-manual or cancel-manual.';
const challengeOutcome = (code: string): string =>
  `Asks for a 3-D Secure challenge (the simulator's challenge page, valid 15 minutes, single use); the code ${code} authorises the payment (captures it when the charge asks for it), any other code declines it (decline code three_ds_failed).`;

const card = (
  provider: string,
  flow: TestCardFlow,
  brand: string,
  number: string,
  outcome: string,
  threeDsCode: string | null = null,
): TestCard => ({
  provider,
  flow,
  brand,
  number,
  expiryMonth: 12,
  expiryYear: EXPIRY_YEAR,
  cvc: brand === 'AMEX' ? '1234' : '123',
  holderName: 'Sandbox Tester',
  outcome,
  threeDsCode,
});

export const TEST_CARDS: readonly TestCard[] = [
  card('iyzico', 'SUCCESS', 'VISA', '4111111111111111', `${SUCCESS_OUTCOME} ${IYZICO_MANUAL}`),
  card('iyzico', 'THREE_DS_CHALLENGE', 'MASTERCARD', '5555555555554444', challengeOutcome('283126'), '283126'),
  card('iyzico', 'FRAUD_DECLINE', 'VISA', '4000000000000259', FRAUD_OUTCOME),
  card(
    'iyzico',
    'REFUND',
    'MASTERCARD',
    '5105105105105100',
    'Authorised (captured at once when the charge asks for it); refunds of any part of what was captured succeed and emit payment.refunded, except a refund after a partial capture (less captured than authorised): iyzico leaves that one to be paid back by hand (MANUAL_REFUND_REQUIRED; the payment keeps it as pendingManualRefund until confirm-manual or cancel-manual).',
  ),
  card('stripe', 'SUCCESS', 'VISA', '4242424242424242', SUCCESS_OUTCOME),
  card('stripe', 'THREE_DS_CHALLENGE', 'VISA', '4000002760003184', challengeOutcome('123456'), '123456'),
  card('stripe', 'FRAUD_DECLINE', 'VISA', '4100000000000019', FRAUD_OUTCOME),
  card('stripe', 'REFUND', 'AMEX', '378282246310005', REFUND_OUTCOME),
  card('adyen', 'SUCCESS', 'MASTERCARD', '5136333333333335', SUCCESS_OUTCOME),
  card('adyen', 'THREE_DS_CHALLENGE', 'VISA', '4917610000000000', challengeOutcome('654321'), '654321'),
  card('adyen', 'FRAUD_DECLINE', 'MASTERCARD', '5500000000000004', FRAUD_OUTCOME),
  card('adyen', 'REFUND', 'VISA', '4400000000000008', REFUND_OUTCOME),
];

/** Luhn check (the fixtures are valid card numbers in form). */
export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i += 1) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function listTestCards(filter: { provider?: string; flow?: TestCardFlow }): { items: TestCard[] } {
  return {
    items: TEST_CARDS.filter((c) => (!filter.provider || c.provider === filter.provider) && (!filter.flow || c.flow === filter.flow)),
  };
}
