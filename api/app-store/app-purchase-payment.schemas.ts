/**
 * The body of paying a purchase (an app purchase here; the same shape fits any purchase paid by card
 * through the payment-provider port): provider, card and installments.
 */
import Joi from 'joi';
import { t } from '../http/typed-schema';
import { PAYMENT_PROVIDERS } from '../payments/providers';

export const cardShape = () =>
  t
    .object({
      number: t.string(Joi.string().pattern(/^[0-9]{12,19}$/, 'card number')).required(),
      expiryMonth: t.number(Joi.number().integer().min(1).max(12)).required(),
      expiryYear: t.number(Joi.number().integer().min(2000).max(2100)).required(),
      cvc: t.string(Joi.string().pattern(/^[0-9]{3,4}$/, 'CVC')).required(),
      holderName: t.string(Joi.string().trim().min(1).max(100)).required(),
    })
    .rules((o) =>
      o.description(
        'The card: 12 to 19 digits, expiry month and year, a 3 or 4 digit CVC, the holder name. Never stored; only its brand and last four digits are kept.',
      ),
    );

export const PAY_PURCHASE_SHAPE = t.object({
  provider: t.oneOf(PAYMENT_PROVIDERS).required(),
  card: cardShape().required(),
  installments: t.number(Joi.number().integer().min(1).max(12).description('1 (single payment) to 12.')).default(1),
});
