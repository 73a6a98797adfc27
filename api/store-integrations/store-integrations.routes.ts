/** Store integrations: the catalog of integrations and the ones a store connected. */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { ConnectStoreIntegrationDto, ToggleStoreIntegrationDto } from './store-integrations.schemas';

export const storeIntegrationsRoutes = defineRoutes({ tag: 'store-integrations', auth: 'merchant' }, [
  {
    operationId: 'storeIntegrations.catalog',
    method: 'GET',
    path: '/store-integrations/catalog',
    summary: 'Integrations a store can connect',
    status: 200,
  },
  {
    operationId: 'storeIntegrations.list',
    method: 'GET',
    path: '/store-integrations',
    summary: 'Integrations connected to a store',
    query: { storeId: storeId() },
    status: 200,
  },
  {
    operationId: 'storeIntegrations.connect',
    method: 'POST',
    path: '/store-integrations/connect',
    summary: 'Connect an integration to a store',
    body: ConnectStoreIntegrationDto,
    status: 200,
  },
  {
    operationId: 'storeIntegrations.toggle',
    method: 'POST',
    path: '/store-integrations/{id}/toggle',
    summary: 'Turn a connected integration on or off',
    body: ToggleStoreIntegrationDto,
    status: 200,
  },
  {
    operationId: 'storeIntegrations.setDefault',
    method: 'POST',
    path: '/store-integrations/{id}/set-default',
    summary: "Make an integration the store's default of its kind",
    status: 200,
  },
  {
    operationId: 'storeIntegrations.disconnect',
    method: 'POST',
    path: '/store-integrations/{id}/disconnect',
    summary: 'Disconnect an integration from its store',
    status: 200,
  },
  {
    operationId: 'storeIntegrations.publicCatalog',
    method: 'GET',
    path: '/store-integrations/public-catalog',
    auth: 'public',
    summary: 'Integrations on offer, for the public website',
    status: 200,
  },
]);
