/**
 * Checkout settings of a store and the storefront wallet checkout (docs/checkout.md). The path segment
 * `wallet-pay` stands for the name of one wallet provider.
 */
import Joi from 'joi';
import { defineRoutes, type BodyContentType, type NamedSchema, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import type { InputOf } from '../http/typed-schema';
import { domainAssociation } from '../wallets/wallets.service';
import { CheckoutSettingsResponse, UpsertMerchantCheckoutSettingsDto, WalletChargeDto, WalletChargeResponse } from './checkout.schemas';
import { chargeWallet } from './wallet-charge.service';
import { getCheckoutSettings, upsertCheckoutSettings } from './checkout-settings.service';

type Params = Record<string, string>;

/**
 * The domain association file: plain text, exactly as stored. The route table has no plain-text
 * response type, so the handler sets text/plain itself; the router serves a string body as it is.
 */
const DomainAssociationFile: NamedSchema = {
  name: 'WalletDomainAssociationFile',
  schema: Joi.string().description("The store's wallet-pay domain association content, as text/plain."),
  contentType: 'text/plain' as BodyContentType,
  pending: false,
};

export const checkoutRoutes = defineRoutes({ tag: 'checkout settings', auth: 'merchant' }, [
  {
    operationId: 'checkout.getSettings',
    method: 'GET',
    path: '/checkout-settings',
    summary: 'Checkout settings of a store',
    description:
      'The saved settings, or the defaults (configured false) when the store saved none: every provider enabled, iyzico the default, 3-D Secure RISK_BASED, no installments, guest checkout, no phone required, no terms.',
    query: { storeId: storeId() },
    response: CheckoutSettingsResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => getCheckoutSettings(req.context, req.query.storeId!),
  },
  {
    operationId: 'checkout.upsertSettings',
    method: 'PUT',
    path: '/checkout-settings',
    summary: 'Create or replace the checkout settings of a store',
    description:
      'Replaces the settings; fields left out take their defaults. defaultProvider must be one of enabledProviders (left out: the first); enabled installments need maxCount 2 to 12; termsUrl or termsText, not both. An empty enabledProviders saves a store that does not sell. Audited (checkout_settings.create, checkout_settings.update); a PUT that changes nothing writes nothing.',
    body: UpsertMerchantCheckoutSettingsDto,
    response: CheckoutSettingsResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, InputOf<typeof UpsertMerchantCheckoutSettingsDto>>) =>
      upsertCheckoutSettings(req.context, req.body),
  },
  {
    operationId: 'checkout.walletCharge',
    method: 'POST',
    path: '/storefront/checkout/wallet/charge',
    tag: 'wallets',
    auth: 'public',
    summary: "Charge a shopper's wallet payment at checkout",
    description:
      "Called by the storefront without a token; the body identifies the store and order and carries the wallet payment token (simulated: wallet-pay:tok_success, wallet-pay:tok_fraud; docs/checkout.md). The order's unpaid total is charged and captured with the store's default payment provider; amount must equal it (409 wallet_amount_mismatch). 404 wallet_not_configured when the store has no enabled wallet-pay, 404 wallet_order_not_found for an order of another store, 409 wallet_order_not_payable when nothing is left to pay. At most 10 charges a minute per client address (429 with Retry-After). A declined wallet payment answers 200 with status DECLINED.",
    body: WalletChargeDto,
    response: WalletChargeResponse,
    problems: [404, 409, 429],
    status: 200,
    handler: (req: RouteRequest<Params, Params, InputOf<typeof WalletChargeDto>>) => chargeWallet(req.context, req.body),
  },
  {
    operationId: 'checkout.walletDomainAssociation',
    method: 'GET',
    path: '/storefront/checkout/wallet/wallet-pay/{storeId}/domain-association',
    tag: 'wallets',
    auth: 'public',
    summary: "The wallet provider's domain association file for a store's storefront domain",
    description:
      'Fetched by the wallet provider without a token when it verifies the domain; served as the plain file the provider expects (text/plain, exactly the stored content). 404 wallet_not_configured when the store has no enabled wallet-pay configuration.',
    response: DomainAssociationFile,
    status: 200,
    handler: async (req: RouteRequest<Params>) => {
      const content = await domainAssociation(req.context, req.params.storeId!);
      req.koa.type = 'text/plain; charset=utf-8';
      return content;
    },
  },
]);
