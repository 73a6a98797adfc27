/**
 * Merchant wallets: a store's wallet payment configuration. The path segment `wallet-pay` stands for
 * the name of one wallet provider.
 */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { WalletConfigUpsertDto } from './wallets.schemas';

export const walletsRoutes = defineRoutes({ tag: 'wallets', auth: 'merchant' }, [
  {
    operationId: 'wallets.get',
    method: 'GET',
    path: '/merchant-wallets',
    summary: 'Wallet payment configuration of a store',
    query: { storeId: storeId() },
    status: 200,
  },
  {
    operationId: 'wallets.upsert',
    method: 'PUT',
    path: '/merchant-wallets',
    summary: "Create or replace a store's wallet payment configuration",
    body: WalletConfigUpsertDto,
    status: 200,
  },
  {
    operationId: 'wallets.verifyDomain',
    method: 'POST',
    path: '/merchant-wallets/wallet-pay/{storeId}/verify-domain',
    summary: "Have the wallet provider verify the store's storefront domain",
    status: 200,
  },
]);
