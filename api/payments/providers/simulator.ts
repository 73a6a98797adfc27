/**
 * The payment simulator: iyzico, stripe and adyen behind the provider port, answering for the
 * sandbox test cards (api/sandbox/sandbox.cards.ts; docs/payments.md, "The simulator"). It plays a
 * separate party: its payments live in its own table (provider_sim_payments), its signatures use its
 * own per-provider secrets, and it talks back only through signed callbacks and signed 3-D Secure
 * returns. It writes with the manager of the context it was created for, so the simulator's rows
 * commit with the caller's transaction (and roll back with it: a charge whose own row rolled back
 * never reaches the simulator either).
 *
 * Rules, card by card (the longer story in docs/payments.md):
 * - Luhn-invalid number: DECLINED invalid_card_number; expiry before the current month: expired_card;
 *   a number that is not a test card of this provider: card_not_supported; installments the card's
 *   BIN does not offer: installments_not_available.
 * - SUCCESS and REFUND cards: AUTHORIZED (CAPTURED with captureNow).
 * - THREE_DS_CHALLENGE cards: CHALLENGE_REQUIRED with a challenge page (15 minutes, single use); the
 *   card's threeDsCode authorizes (captures with captureNow), another code declines (three_ds_failed).
 * - FRAUD_DECLINE cards: DECLINED fraud_suspected.
 * - Captures: partial captures up to the authorized amount. Void: only with nothing captured.
 * - Refunds: up to captured minus refunded. Manual refund rule: on iyzico, a refund of a payment
 *   captured for less than its authorized amount (a partial capture) answers MANUAL_REFUND_REQUIRED
 *   (iyzico refunds per captured basket; a partially captured one must be paid back by hand).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { TEST_CARDS, luhnValid } from '../../sandbox/sandbox.cards';
import { servicesOf, type RequestContext } from '../../../storage/request-context';
import { enqueueOutbox } from '../../../storage/outbox';
import { paymentsError } from '../payments.errors';
import { installmentCountsFor, installmentOptions } from './installments';
import type {
  AuthorizeInput,
  AuthorizeOutcome,
  CardDetails,
  SavedCard,
  InstallmentOption,
  PaymentProvider,
  PaymentProviderName,
  ProviderCallback,
  ProviderCallbackType,
  ReturnOutcome,
} from './port';
import { callbackSignatureProblem, providerSecret, signCallback, signReturnQuery, SIGNATURE_HEADER, verifyReturnQuery } from './signing';

/** How long a 3-D Secure challenge may be answered. */
export const CHALLENGE_TTL_MINUTES = 15;

const ID_PREFIX: Record<PaymentProviderName, string> = { iyzico: 'iyz', stripe: 'pi', adyen: 'psp' };

const DECLINE_MESSAGES: Record<string, string> = {
  invalid_card_number: 'The card number is not valid.',
  expired_card: 'The card has expired.',
  card_not_supported: 'The card is not supported by this provider.',
  saved_card_unknown: 'The provider keeps no card under this token.',
  authentication_required: 'The card asks for 3-D Secure, and nobody is present to answer it.',
  installments_not_available: 'The card does not offer this number of installments.',
  fraud_suspected: 'Declined by the fraud check.',
  three_ds_failed: 'The 3-D Secure challenge failed.',
};

export const simulatorCallbackError = (detail: string): Error =>
  paymentsError('provider_callback_invalid', `The provider callback was refused: ${detail}.`);

interface SimRow {
  id: string;
  provider: PaymentProviderName;
  reference: string;
  status: string;
  amount: string;
  currency: string;
  captured: string;
  refunded: string;
  capture_now: boolean;
  card_flow: string | null;
  card_brand: string | null;
  card_last4: string | null;
  challenge_code: string | null;
  challenge_expires_at: Date | null;
  challenge_used_at: Date | null;
  return_url: string | null;
  callback_url: string | null;
}

function expired(month: number, year: number, now = new Date()): boolean {
  const y = now.getUTCFullYear();
  return year < y || (year === y && month < now.getUTCMonth() + 1);
}

/** The public address of the challenge page of a token. */
export function challengeUrl(ctx: RequestContext, provider: PaymentProviderName, token: string): string {
  return `${servicesOf(ctx).config.publicBaseUrl}/api/v1/sandbox-provider/${provider}/challenge/${token}`;
}

/** Writes a signed callback and queues its delivery (jobs worker, after commit, with retries). */
export async function queueSimulatorCallback(
  tx: RequestContext,
  provider: PaymentProviderName,
  url: string | null,
  event: Omit<ProviderCallback, 'eventId'>,
): Promise<void> {
  if (!url) return;
  const id = randomUUID();
  const body = JSON.stringify({ eventId: `evt_${id.replace(/-/g, '')}`, provider, occurredAt: new Date().toISOString(), ...event });
  await tx.manager.query('INSERT INTO provider_sim_callbacks (id, provider, url, body) VALUES ($1, $2, $3, $4)', [id, provider, url, body]);
  await enqueueOutbox(tx, { queue: 'jobs', aggregateType: 'provider_callback', topic: 'provider_callback.send', aggregateId: id });
}

export class SimulatedProvider implements PaymentProvider {
  constructor(
    readonly name: PaymentProviderName,
    private readonly ctx: RequestContext,
  ) {}

  private get secret(): Buffer {
    return providerSecret(servicesOf(this.ctx).config.appSecret, this.name);
  }

  private newId(): string {
    return `${ID_PREFIX[this.name]}_${randomBytes(12).toString('hex')}`;
  }

  /** The card to charge: the one given, or the one saved under a token (no cardholder present). */
  private async cardOf(card: AuthorizeInput['card']): Promise<{ card: CardDetails | null; saved: boolean }> {
    if (!('savedCardToken' in card)) return { card, saved: false };
    const rows = (await this.ctx.manager.query(
      'SELECT number, expiry_month, expiry_year, holder_name FROM provider_sim_cards WHERE token = $1 AND provider = $2',
      [card.savedCardToken, this.name],
    )) as Array<{ number: string; expiry_month: number; expiry_year: number; holder_name: string }>;
    const row = rows[0];
    if (!row) return { card: null, saved: true };
    return {
      card: { number: row.number, expiryMonth: row.expiry_month, expiryYear: row.expiry_year, cvc: '', holderName: row.holder_name },
      saved: true,
    };
  }

  /** The first check a card fails, if any (the same rules for a charge and for saving it). */
  private cardDecline(card: CardDetails, installments = 1): { decline?: string; number: string; test?: (typeof TEST_CARDS)[number] } {
    const number = card.number.replace(/[\s-]/g, '');
    const test = TEST_CARDS.find((c) => c.provider === this.name && c.number === number);
    let decline: string | undefined;
    if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) decline = 'invalid_card_number';
    else if (expired(card.expiryMonth, card.expiryYear)) decline = 'expired_card';
    else if (!test) decline = 'card_not_supported';
    else if (!installmentCountsFor(number.slice(0, 8)).includes(installments)) decline = 'installments_not_available';
    else if (test.flow === 'FRAUD_DECLINE') decline = 'fraud_suspected';
    return { decline, number, test };
  }

  async saveCard(card: CardDetails): Promise<SavedCard> {
    const { decline, number, test } = this.cardDecline(card);
    if (decline) throw paymentsError('card_not_saved', `${this.name} did not save the card: ${DECLINE_MESSAGES[decline]}`);
    const token = `card_${randomBytes(12).toString('hex')}`;
    await this.ctx.manager.query(
      'INSERT INTO provider_sim_cards (token, provider, number, expiry_month, expiry_year, holder_name) VALUES ($1, $2, $3, $4, $5, $6)',
      [token, this.name, number, card.expiryMonth, card.expiryYear, card.holderName],
    );
    return { cardToken: token, cardBrand: test!.brand, cardLast4: number.slice(-4) };
  }

  async authorize(input: AuthorizeInput): Promise<AuthorizeOutcome> {
    const id = this.newId();
    const resolved = await this.cardOf(input.card);
    const card = resolved.card ?? { number: '', expiryMonth: 0, expiryYear: 0, cvc: '', holderName: '' };
    const checked = this.cardDecline(card, input.installments ?? 1);
    const { number, test } = checked;
    let decline = resolved.card ? checked.decline : 'saved_card_unknown';
    // A saved card is charged without its holder: a card that needs 3-D Secure cannot be authenticated.
    if (!decline && resolved.saved && test?.flow === 'THREE_DS_CHALLENGE') decline = 'authentication_required';

    const base = [id, this.name, input.reference, input.amount, input.currency, test?.flow ?? null, test?.brand ?? null, number.slice(-4)];
    const insert = (status: string, extra: { declineCode?: string; token?: string; code?: string | null; captured?: boolean }) =>
      this.ctx.manager.query(
        `INSERT INTO provider_sim_payments (id, provider, reference, amount, currency, card_flow, card_brand, card_last4, status,
           capture_now, captured, decline_code, challenge_token, challenge_code, challenge_expires_at, return_url, callback_url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $11 THEN $4::numeric ELSE 0 END, $12, $13, $14,
           CASE WHEN $13::text IS NULL THEN NULL ELSE now() + make_interval(mins => $15) END, $16, $17)`,
        [
          ...base,
          status,
          input.captureNow ?? false,
          extra.captured ?? false,
          extra.declineCode ?? null,
          extra.token ?? null,
          extra.code ?? null,
          CHALLENGE_TTL_MINUTES,
          input.returnUrl,
          input.callbackUrl,
        ],
      );

    if (decline) {
      await insert('DECLINED', { declineCode: decline });
      return { status: 'DECLINED', providerPaymentId: id, declineCode: decline, message: DECLINE_MESSAGES[decline]! };
    }
    if (test!.flow === 'THREE_DS_CHALLENGE') {
      const token = randomBytes(24).toString('base64url');
      await insert('CHALLENGE_PENDING', { token, code: test!.threeDsCode });
      const expiresAt = new Date(Date.now() + CHALLENGE_TTL_MINUTES * 60_000);
      return { status: 'CHALLENGE_REQUIRED', providerPaymentId: id, challengeUrl: challengeUrl(this.ctx, this.name, token), expiresAt };
    }
    const capture = input.captureNow ?? false;
    await insert(capture ? 'CAPTURED' : 'AUTHORIZED', { captured: capture });
    return { status: capture ? 'CAPTURED' : 'AUTHORIZED', providerPaymentId: id, cardBrand: test!.brand, cardLast4: number.slice(-4) };
  }

  async capture(providerPaymentId: string, amount: string): Promise<{ captureId: string }> {
    const rows = (await this.ctx.manager.query(
      `UPDATE provider_sim_payments SET captured = captured + $3::numeric, capture_count = capture_count + 1, status = 'CAPTURED',
              updated_at = now()
        WHERE id = $1 AND provider = $2 AND status IN ('AUTHORIZED', 'CAPTURED') AND captured + $3::numeric <= amount RETURNING id`,
      [providerPaymentId, this.name, amount],
    )) as unknown[];
    if (rows.length === 0) throw paymentsError('provider_refused', `${this.name} refused to capture ${amount} of ${providerPaymentId}.`);
    return { captureId: this.newId().replace(/^[a-z]+_/, 'cap_') };
  }

  async void(providerPaymentId: string): Promise<void> {
    const rows = (await this.ctx.manager.query(
      `UPDATE provider_sim_payments SET status = 'VOIDED', updated_at = now()
        WHERE id = $1 AND provider = $2 AND status = 'AUTHORIZED' AND captured = 0 RETURNING id`,
      [providerPaymentId, this.name],
    )) as unknown[];
    if (rows.length === 0) throw paymentsError('provider_refused', `${this.name} refused to void ${providerPaymentId}.`);
  }

  async refund(providerPaymentId: string, amount: string): Promise<{ refundId: string; status: 'REFUNDED' | 'MANUAL_REFUND_REQUIRED' }> {
    const rows = (await this.ctx.manager.query(
      `SELECT id, amount, captured, refunded FROM provider_sim_payments WHERE id = $1 AND provider = $2 FOR UPDATE`,
      [providerPaymentId, this.name],
    )) as Array<Pick<SimRow, 'id' | 'amount' | 'captured' | 'refunded'>>;
    const row = rows[0];
    if (!row) throw paymentsError('provider_refused', `${this.name} knows no payment ${providerPaymentId}.`);
    const refundId = `re_${randomBytes(12).toString('hex')}`;
    const manual = (await this.ctx.manager.query(
      `SELECT ($1::numeric < $2::numeric) AS partial, ($3::numeric + $4::numeric <= $5::numeric) AS fits`,
      [row.captured, row.amount, row.refunded, amount, row.captured],
    )) as Array<{ partial: boolean; fits: boolean }>;
    if (!manual[0]!.fits) throw paymentsError('provider_refused', `${this.name} refused to refund ${amount} of ${providerPaymentId}.`);
    if (this.name === 'iyzico' && manual[0]!.partial) return { refundId, status: 'MANUAL_REFUND_REQUIRED' };
    await this.ctx.manager.query(`UPDATE provider_sim_payments SET refunded = refunded + $2::numeric, updated_at = now() WHERE id = $1`, [
      providerPaymentId,
      amount,
    ]);
    return { refundId, status: 'REFUNDED' };
  }

  async installmentOptions(bin: string, amount: string, currency: string): Promise<InstallmentOption[]> {
    return installmentOptions(bin, amount, currency);
  }

  verifyCallback(headers: Record<string, string | undefined>, rawBody: Buffer): ProviderCallback {
    const header = headers[SIGNATURE_HEADER] ?? headers['X-Provider-Signature'];
    const problem = callbackSignatureProblem(this.secret, header, rawBody);
    if (problem) throw simulatorCallbackError(problem);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw simulatorCallbackError('the body is not JSON');
    }
    const types: ProviderCallbackType[] = [
      'payment.authorized',
      'payment.captured',
      'payment.declined',
      'payment.refunded',
      'refund.manual_required',
    ];
    const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;
    if (body.provider !== this.name) throw simulatorCallbackError('the callback is of another provider');
    if (!str(body.eventId) || !str(body.providerPaymentId) || !str(body.reference) || !types.includes(body.type as ProviderCallbackType))
      throw simulatorCallbackError('the body lacks eventId, type, providerPaymentId or reference');
    return {
      eventId: body.eventId,
      type: body.type as ProviderCallbackType,
      providerPaymentId: body.providerPaymentId,
      reference: body.reference,
      ...(str(body.amount) ? { amount: body.amount } : {}),
      ...(str(body.declineCode) ? { declineCode: body.declineCode } : {}),
    };
  }

  verifyReturn(query: Record<string, string | undefined>): ReturnOutcome {
    const checked = verifyReturnQuery(this.secret, query);
    if ('problem' in checked) throw simulatorCallbackError(checked.problem);
    const { provider_payment_id: providerPaymentId, reference, outcome, decline_code: declineCode } = checked.params;
    if (!providerPaymentId || !reference || (outcome !== 'AUTHORIZED' && outcome !== 'CAPTURED' && outcome !== 'DECLINED'))
      throw simulatorCallbackError('the return lacks its payment, reference or outcome');
    return { providerPaymentId, reference, outcome, ...(declineCode ? { declineCode } : {}) };
  }

  /** Signs a callback body as this provider does (tests and the delivery job). */
  signCallback(rawBody: Buffer): string {
    return signCallback(this.secret, rawBody);
  }

  /** The signed query of a 3-D Secure return (the challenge page, and tests). */
  signReturn(params: Record<string, string>): string {
    return signReturnQuery(this.secret, params);
  }
}

// ------------------------------------------------------------------------------- challenge page

export interface ChallengeView {
  provider: PaymentProviderName;
  amount: string;
  currency: string;
  cardBrand: string | null;
  cardLast4: string | null;
  reference: string;
  expiresAt: Date;
}

async function loadChallenge(
  tx: RequestContext,
  provider: PaymentProviderName,
  token: string,
  lock: boolean,
): Promise<SimRow & { challenge_expired: boolean }> {
  const rows = (await tx.manager.query(
    `SELECT *, challenge_expires_at < now() AS challenge_expired FROM provider_sim_payments
      WHERE provider = $1 AND challenge_token = $2 ${lock ? 'FOR UPDATE' : ''}`,
    [provider, token],
  )) as Array<SimRow & { challenge_expired: boolean }>;
  const row = rows[0];
  if (!row) throw paymentsError('challenge_not_found', 'No 3-D Secure challenge has this address.');
  if (row.status !== 'CHALLENGE_PENDING' || row.challenge_used_at || row.challenge_expired)
    throw paymentsError('challenge_closed', 'This 3-D Secure challenge was already answered or has expired.');
  return row;
}

export async function showChallenge(ctx: RequestContext, provider: PaymentProviderName, token: string): Promise<ChallengeView> {
  const row = await loadChallenge(ctx, provider, token, false);
  return {
    provider,
    amount: row.amount,
    currency: row.currency,
    cardBrand: row.card_brand,
    cardLast4: row.card_last4,
    reference: row.reference,
    expiresAt: row.challenge_expires_at!,
  };
}

/**
 * Answers a challenge (once): the right code authorizes (captures with captureNow), another declines.
 * Queues the signed callback and answers the signed return URL the browser is sent to.
 */
export async function answerChallenge(tx: RequestContext, provider: PaymentProviderName, token: string, code: string): Promise<string> {
  const row = await loadChallenge(tx, provider, token, true);
  const ok = row.challenge_code !== null && code === row.challenge_code;
  const outcome: ReturnOutcome['outcome'] = !ok ? 'DECLINED' : row.capture_now ? 'CAPTURED' : 'AUTHORIZED';
  await tx.manager.query(
    `UPDATE provider_sim_payments SET status = $2, challenge_used_at = now(), decline_code = $3,
            captured = CASE WHEN $2 = 'CAPTURED' THEN amount ELSE captured END, updated_at = now() WHERE id = $1`,
    [row.id, outcome, ok ? null : 'three_ds_failed'],
  );
  await queueSimulatorCallback(tx, provider, row.callback_url, {
    type: outcome === 'DECLINED' ? 'payment.declined' : outcome === 'CAPTURED' ? 'payment.captured' : 'payment.authorized',
    providerPaymentId: row.id,
    reference: row.reference,
    amount: row.amount,
    ...(ok ? {} : { declineCode: 'three_ds_failed' }),
  });
  const sim = new SimulatedProvider(provider, tx);
  const params: Record<string, string> = { provider_payment_id: row.id, reference: row.reference, outcome };
  if (!ok) params.decline_code = 'three_ds_failed';
  const returnUrl = row.return_url ?? `${servicesOf(tx).config.publicBaseUrl}/`;
  return `${returnUrl}${returnUrl.includes('?') ? '&' : '?'}${sim.signReturn(params)}`;
}
