/**
 * Merchant wallets (docs/checkout.md, "Wallets"): a store's wallet payment configuration. The path
 * segment `wallet-pay` stands for the name of one wallet provider.
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import type { InputOf } from '../http/typed-schema';
import { WalletConfigResponse, WalletConfigUpsertDto } from './wallets.schemas';
import { getWalletConfig, upsertWalletConfig, verifyWalletDomains } from './wallets.service';

type Params = Record<string, string>;

export const walletsRoutes = defineRoutes({ tag: 'wallets', auth: 'merchant' }, [
  {
    operationId: 'wallets.get',
    method: 'GET',
    path: '/merchant-wallets',
    summary: 'Wallet payment configuration of a store',
    description:
      'The wallet-pay configuration of the store, each domain with its last verification, and the domain association file to serve; configured false (disabled, nothing set) before the first PUT.',
    query: { storeId: storeId() },
    response: WalletConfigResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => getWalletConfig(req.context, req.query.storeId!),
  },
  {
    operationId: 'wallets.upsert',
    method: 'PUT',
    path: '/merchant-wallets',
    summary: "Create or replace a store's wallet payment configuration",
    description:
      'Replaces the configuration (fields left out take their defaults). The first save generates the domain association content, kept across later saves. Audited (wallet_config.create, wallet_config.update); a PUT that changes nothing writes nothing.',
    body: WalletConfigUpsertDto,
    response: WalletConfigResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, InputOf<typeof WalletConfigUpsertDto>>) => upsertWalletConfig(req.context, req.body),
  },
  {
    operationId: 'wallets.verifyDomain',
    method: 'POST',
    path: '/merchant-wallets/wallet-pay/{storeId}/verify-domain',
    summary: "Have the wallet provider verify the store's storefront domain",
    description:
      "Fetches https://<domain>/.well-known/wallet-pay-domain-association for every configured domain (public addresses only, 5 s, no redirects) and records VERIFIED when it holds the store's association content, else FAILED with the reason. 404 wallet_not_configured without a configuration, 409 wallet_no_domains without domains.",
    response: WalletConfigResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => verifyWalletDomains(req.context, req.params.storeId!),
  },
]);
