/** DTOs and response schemas of the merchant wallets area (wallet payment methods of a store). */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';

/** The wallet providers; the path segment `wallet-pay` names the one there is. */
export const WALLET_PROVIDERS = ['wallet-pay'] as const;
export type WalletProvider = (typeof WALLET_PROVIDERS)[number];

/** The card networks a wallet payment may use. */
export const WALLET_NETWORKS = ['visa', 'mastercard', 'amex', 'troy'] as const;

/** A host name: labels of letters, digits and hyphens, at least two, at most 253 characters, lower-case; no IP address, no port. */
const HOSTNAME = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const WalletConfigUpsertDto = typedDto(
  'WalletConfigUpsertDto',
  t.object({
    storeId: t.storeId(),
    provider: t
      .oneOf(WALLET_PROVIDERS)
      .rules((s) => s.description('The wallet provider; wallet-pay (the only one).'))
      .default('wallet-pay'),
    enabled: t.boolean().required(),
    displayName: t
      .string(Joi.string().trim().min(1).max(64))
      .rules((s) => s.description('The merchant name the wallet sheet shows (1 to 64 characters).'))
      .required(),
    domains: t
      .array(t.string(Joi.string().lowercase().pattern(HOSTNAME, 'host name')), Joi.array().max(10).unique())
      .rules((s) => s.description('The storefront host names the wallet is offered on (at most 10, each once; no scheme, port or path).'))
      .default([]),
    supportedNetworks: t
      .array(t.oneOf(WALLET_NETWORKS), Joi.array().min(1).max(WALLET_NETWORKS.length).unique())
      .rules((s) => s.description('Card networks accepted through the wallet.'))
      .default(['visa', 'mastercard']),
  }),
);

const Verification = Joi.object({
  status: Joi.string().valid('VERIFIED', 'FAILED').required(),
  reason: Joi.string().allow(null).required(),
  checkedAt: Joi.string().isoDate().required(),
}).label('WalletDomainVerification');

const Domain = Joi.object({
  domain: Joi.string().required(),
  verification: Verification.allow(null).required().description('The last verification; null: never verified.'),
}).label('WalletDomain');

export const WalletConfigResponse = dto(
  'WalletConfigResponse',
  Joi.object({
    storeId: Joi.string().required(),
    provider: Joi.string()
      .valid(...WALLET_PROVIDERS)
      .required(),
    configured: Joi.boolean().required().description('False: nothing saved yet (disabled, no domains).'),
    enabled: Joi.boolean().required(),
    displayName: Joi.string().allow(null).required(),
    domains: Joi.array().items(Domain).required(),
    supportedNetworks: Joi.array()
      .items(Joi.string().valid(...WALLET_NETWORKS))
      .required(),
    domainAssociation: Joi.object({
      path: Joi.string().required().description('Where each domain must serve the file (under the domain).'),
      url: Joi.string().required().description('Where this platform serves the file for the store: copy it or proxy it.'),
      content: Joi.string().required().description('The exact content, generated once per store.'),
    })
      .allow(null)
      .required(),
    updatedAt: Joi.string().isoDate().allow(null).required(),
  }),
);
