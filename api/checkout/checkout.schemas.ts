/** DTOs and response schemas of the checkout area: merchant checkout settings and the storefront wallet checkout. */
import Joi from 'joi';
import { dto } from '../http/route';
import { money, uuid } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';
import { THREE_DS_POLICIES } from '../../storage/entities/checkout-settings.entity';
import { PAYMENT_PROVIDERS } from '../payments/providers/port';

export const UpsertMerchantCheckoutSettingsDto = typedDto(
  'UpsertMerchantCheckoutSettingsDto',
  t
    .object({
      storeId: t.storeId(),
      enabledProviders: t
        .array(t.oneOf(PAYMENT_PROVIDERS), Joi.array().max(PAYMENT_PROVIDERS.length).unique())
        .rules((s) => s.description('The payment providers the storefront offers; at least one for the store to sell. Each once.'))
        .required(),
      defaultProvider: t
        .oneOf(PAYMENT_PROVIDERS)
        .rules((s) => s.description('One of enabledProviders; null or left out: the first of them.'))
        .nullable(),
      threeDsPolicy: t
        .oneOf(THREE_DS_POLICIES)
        .rules((s) => s.description('When card payments ask for 3-D Secure (docs/checkout.md). Default RISK_BASED.'))
        .default('RISK_BASED'),
      installments: t
        .object({
          enabled: t.boolean().required(),
          maxCount: t.number(Joi.number().integer().min(1).max(12)).default(1),
          minAmount: t.number(money()).default(0),
        })
        .rules((o) => o.description('Installment offers: at most maxCount (1 to 12) for orders of at least minAmount.'))
        .default({ enabled: false, maxCount: 1, minAmount: 0 }),
      guestCheckout: t.boolean().default(true),
      requirePhone: t.boolean().default(false),
      termsUrl: t
        .string(
          Joi.string()
            .uri({ scheme: ['http', 'https'] })
            .max(2000),
        )
        .rules((s) => s.description('The terms the shopper accepts, as a link (http or https, at most 2000 characters); or termsText.'))
        .nullable(),
      termsText: t
        .string(Joi.string().trim().min(1).max(20000))
        .rules((s) => s.description('The terms as text (at most 20000 characters); or termsUrl, not both.'))
        .nullable(),
    })
    .rules((o) => o.oxor('termsUrl', 'termsText')),
);

export const CheckoutSettingsResponse = dto(
  'MerchantCheckoutSettingsResponse',
  Joi.object({
    storeId: Joi.string().required(),
    configured: Joi.boolean().required().description('False: nothing saved yet, these are the defaults.'),
    enabledProviders: Joi.array()
      .items(Joi.string().valid(...PAYMENT_PROVIDERS))
      .required(),
    defaultProvider: Joi.string()
      .valid(...PAYMENT_PROVIDERS)
      .allow(null)
      .required(),
    threeDsPolicy: Joi.string()
      .valid(...THREE_DS_POLICIES)
      .required(),
    installments: Joi.object({
      enabled: Joi.boolean().required(),
      maxCount: Joi.number().integer().required(),
      minAmount: Joi.number().required(),
    }).required(),
    guestCheckout: Joi.boolean().required(),
    requirePhone: Joi.boolean().required(),
    termsUrl: Joi.string().allow(null).required(),
    termsText: Joi.string().allow(null).required(),
    readyToSell: Joi.boolean().required().description('At least one payment provider is enabled.'),
    updatedAt: Joi.string().isoDate().allow(null).required(),
  }),
);

export const WalletChargeDto = typedDto(
  'WalletChargeDto',
  t.object({
    storeId: t.storeId(),
    orderId: t.string(uuid()).required(),
    token: t
      .string(Joi.string().pattern(/^[a-z][a-z0-9-]{0,39}:tok_[A-Za-z0-9_]{1,100}$/, 'wallet token'))
      .rules((s) => s.description('The wallet payment token (docs/checkout.md, "Wallet tokens"), e.g. wallet-pay:tok_success.'))
      .required(),
    amount: t
      .number(money().greater(0))
      .rules((s) => s.description("Must equal the order's unpaid total."))
      .required(),
  }),
);

export const WalletChargeResponse = dto(
  'WalletChargeResponse',
  Joi.object({
    orderId: Joi.string().required(),
    paymentId: Joi.string().required(),
    status: Joi.string()
      .valid('PAID', 'DECLINED')
      .required()
      .description('PAID: captured; DECLINED: nothing charged (declineCode says why).'),
    provider: Joi.string()
      .valid(...PAYMENT_PROVIDERS)
      .required(),
    amount: Joi.number().required(),
    currency: Joi.string().required(),
    declineCode: Joi.string().allow(null).required(),
  }),
);
