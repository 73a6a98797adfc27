/**
 * Checkout settings of a store and the storefront wallet checkout. The path segment `wallet-pay`
 * stands for the name of one wallet provider.
 */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { UpsertMerchantCheckoutSettingsDto, WalletChargeDto } from './checkout.schemas';

export const checkoutRoutes = defineRoutes({ tag: 'checkout settings', auth: 'merchant' }, [
  {
    operationId: 'checkout.getSettings',
    method: 'GET',
    path: '/checkout-settings',
    summary: 'Checkout settings of a store',
    query: { storeId: storeId() },
    status: 200,
  },
  {
    operationId: 'checkout.upsertSettings',
    method: 'PUT',
    path: '/checkout-settings',
    summary: 'Create or replace the checkout settings of a store',
    body: UpsertMerchantCheckoutSettingsDto,
    status: 200,
  },
  {
    operationId: 'checkout.walletCharge',
    method: 'POST',
    path: '/storefront/checkout/wallet/charge',
    tag: 'wallets',
    auth: 'public',
    summary: "Charge a shopper's wallet payment at checkout",
    description: 'Called by the storefront without a token; the body identifies the store and carries the wallet payment token.',
    body: WalletChargeDto,
    status: 200,
  },
  {
    operationId: 'checkout.walletDomainAssociation',
    method: 'GET',
    path: '/storefront/checkout/wallet/wallet-pay/{storeId}/domain-association',
    tag: 'wallets',
    auth: 'public',
    summary: "The wallet provider's domain association file for a store's storefront domain",
    description:
      'Fetched by the wallet provider without a token when it verifies the domain; served as the plain file the provider expects.',
    status: 200,
  },
]);
