/**
 * Test payment cards of the sandbox: cards of three payment providers, preloaded for success, 3DS
 * challenge, fraud and refund flows (docs/accounts.md, "Sandbox"). Static fixtures: they are the
 * same in every sandbox, move no money, and are what the payments area's sandbox mode will recognise. The numbers
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
  card('iyzico', 'SUCCESS', 'VISA', '4111111111111111', 'Authorised and captured at once.'),
  card(
    'iyzico',
    'THREE_DS_CHALLENGE',
    'MASTERCARD',
    '5555555555554444',
    'Asks for a 3-D Secure challenge; the code 283126 completes it, any other code fails it (payment declined).',
    '283126',
  ),
  card(
    'iyzico',
    'FRAUD_DECLINE',
    'VISA',
    '4000000000000259',
    'Declined by the fraud check (decline code fraud_suspected); nothing is captured.',
  ),
  card(
    'iyzico',
    'REFUND',
    'MASTERCARD',
    '5105105105105100',
    'Captured; a refund of any part of the amount succeeds and emits payment.refunded.',
  ),
  card('stripe', 'SUCCESS', 'VISA', '4242424242424242', 'Authorised and captured at once.'),
  card(
    'stripe',
    'THREE_DS_CHALLENGE',
    'VISA',
    '4000002760003184',
    'Asks for a 3-D Secure challenge; the code 123456 completes it.',
    '123456',
  ),
  card('stripe', 'FRAUD_DECLINE', 'VISA', '4100000000000019', 'Declined by the fraud check (decline code fraud_suspected).'),
  card('stripe', 'REFUND', 'AMEX', '378282246310005', 'Captured; a full or partial refund succeeds and emits payment.refunded.'),
  card('adyen', 'SUCCESS', 'MASTERCARD', '5136333333333335', 'Authorised and captured at once.'),
  card(
    'adyen',
    'THREE_DS_CHALLENGE',
    'VISA',
    '4917610000000000',
    'Asks for a 3-D Secure challenge; the code 654321 completes it.',
    '654321',
  ),
  card('adyen', 'FRAUD_DECLINE', 'MASTERCARD', '5500000000000004', 'Declined by the fraud check (decline code fraud_suspected).'),
  card('adyen', 'REFUND', 'VISA', '4400000000000008', 'Captured; a refund succeeds and emits payment.refunded.'),
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
