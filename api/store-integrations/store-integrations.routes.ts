/** Store integrations (docs/integrations.md): the catalog of integrations and the ones a store connected. */
import Joi from 'joi';
import type { Readable } from 'node:stream';
import { csvDocument, defineRoutes, type BodyContentType, type NamedSchema, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import { openProductFeed, type FeedFormat } from './product-feed';
import {
  ConnectStoreIntegrationDto,
  DisconnectedIntegrationResponse,
  feedToken,
  IntegrationCatalogResponse,
  PublicIntegrationCatalogResponse,
  StoreIntegrationListResponse,
  StoreIntegrationResponse,
  StorefrontIntegrationsResponse,
  ToggleStoreIntegrationDto,
  type ConnectStoreIntegrationInput,
  type ToggleStoreIntegrationInput,
} from './store-integrations.schemas';
import {
  connectStoreIntegration,
  disconnectStoreIntegration,
  integrationCatalog,
  listStoreIntegrations,
  publicIntegrationCatalog,
  setDefaultStoreIntegration,
  storefrontIntegrations,
  toggleStoreIntegration,
} from './store-integrations.service';

type Params = Record<string, string>;

const FEED_DESCRIPTION =
  'Extension. The store\'s published products as a Google Merchant Center feed, streamed in batches (docs/integrations.md, "Product feed"). 404 product_feed_not_found when the store is archived or closed, the integration is not an enabled marketplace_feed of this store, or its access is token and `token` is missing or wrong. Answers ETag, Last-Modified and Cache-Control: public, max-age=300; If-None-Match naming the current ETag answers 304 without a body (If-Modified-Since alone is not honoured: a sale changes stock without a date the feed could give).';

/**
 * The RSS 2.0 document. Route rows have no XML content type of their own, so this one is declared
 * here with its media type; the router answers what the handler set (application/xml).
 */
const ProductFeedXml: NamedSchema = {
  name: 'ProductFeedXml',
  schema: Joi.string().description(
    'RSS 2.0 with the Google Merchant Center namespace (xmlns:g="http://base.google.com/ns/1.0"): one <item> per published product with g:id, g:title, g:description, g:link, g:image_link, g:availability, g:price, g:sale_price, g:condition, g:brand, g:gtin, g:mpn (those without a value left out).',
  ),
  contentType: 'application/xml' as BodyContentType,
  pending: false,
};
const ProductFeedCsv = csvDocument(
  'ProductFeedCsv',
  'One row per published product: id, title, description, link, image_link, availability, price, sale_price, condition, brand, gtin, mpn (the Merchant Center attribute names).',
);

/** Serves a feed: the caching headers, then 304 (answered here, the body skipped) or the streamed document. */
function feedHandler(format: FeedFormat) {
  return async (req: RouteRequest<Params, { token?: string }>): Promise<Readable | null> => {
    const feed = await openProductFeed(req.context, {
      storeId: req.params.storeId!,
      integrationId: req.params.id!,
      token: req.query.token,
      format,
      ifNoneMatch: req.koa.get('If-None-Match') || undefined,
    });
    const koa = req.koa;
    koa.set('ETag', feed.etag);
    koa.set('Last-Modified', feed.lastModified.toUTCString());
    koa.set('Cache-Control', 'public, max-age=300');
    if (!feed.body) {
      // The router answers the row's status after the handler; a 304 is sent here and Koa is told
      // the response is written, so nothing after this changes it.
      koa.status = 304;
      koa.respond = false;
      koa.res.end();
      return null;
    }
    koa.type = format === 'xml' ? 'application/xml; charset=utf-8' : 'text/csv; charset=utf-8';
    return feed.body;
  };
}

export const storeIntegrationsRoutes = defineRoutes({ tag: 'store-integrations', auth: 'merchant' }, [
  {
    operationId: 'storeIntegrations.catalog',
    method: 'GET',
    path: '/store-integrations/catalog',
    summary: 'Integrations a store can connect',
    description:
      'The kinds of integration and every integration on offer with its settings schema (the fields a connection takes: type, pattern, length, secret) and whether it does real work here (live) or is a catalog entry that keeps its settings only.',
    response: IntegrationCatalogResponse,
    status: 200,
    handler: (req: RouteRequest) => integrationCatalog(req.context),
  },
  {
    operationId: 'storeIntegrations.list',
    method: 'GET',
    path: '/store-integrations',
    summary: 'Integrations connected to a store',
    description:
      'Every integration the store connected, by kind then oldest first, with its settings; secret fields only as which are set (and the last four characters of a long one), never their values.',
    query: { storeId: storeId() },
    response: StoreIntegrationListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listStoreIntegrations(req.context, req.query as { storeId: string }),
  },
  {
    operationId: 'storeIntegrations.connect',
    method: 'POST',
    path: '/store-integrations/connect',
    summary: 'Connect an integration to a store',
    description:
      "Connects the integration to the store with its settings, validated against the integration's settings schema (400 store_integration_settings_invalid naming each field). Connecting one the store already has replaces its settings (a secret left out is kept). The first enabled integration of a kind becomes the store's default of that kind. 404 integration_not_found for an unknown slug.",
    body: ConnectStoreIntegrationDto,
    response: StoreIntegrationResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, ConnectStoreIntegrationInput>) => connectStoreIntegration(req.context, req.body),
  },
  {
    operationId: 'storeIntegrations.toggle',
    method: 'POST',
    path: '/store-integrations/{id}/toggle',
    summary: 'Turn a connected integration on or off',
    description:
      'Sets enabled. Turned off, an integration does nothing (a product feed answers 404, an analytics tag leaves the storefront) and stops being the default of its kind. Setting the value it already has changes nothing.',
    body: ToggleStoreIntegrationDto,
    response: StoreIntegrationResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, ToggleStoreIntegrationInput>) =>
      toggleStoreIntegration(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'storeIntegrations.setDefault',
    method: 'POST',
    path: '/store-integrations/{id}/set-default',
    summary: "Make an integration the store's default of its kind",
    description:
      'The integration becomes the default of its kind for its store and the previous default stops being one, in one transaction: a store has at most one default per kind, also under concurrent calls. 409 store_integration_disabled when the integration is turned off.',
    response: StoreIntegrationResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params>) => setDefaultStoreIntegration(req.context, req.params.id!),
  },
  {
    operationId: 'storeIntegrations.disconnect',
    method: 'POST',
    path: '/store-integrations/{id}/disconnect',
    summary: 'Disconnect an integration from its store',
    description:
      'Removes the connection with its settings and secrets. A disconnected default leaves the store without a default of that kind until another is set; a disconnected product feed answers 404.',
    response: DisconnectedIntegrationResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => disconnectStoreIntegration(req.context, req.params.id!),
  },
  {
    operationId: 'storeIntegrations.publicCatalog',
    method: 'GET',
    path: '/store-integrations/public-catalog',
    auth: 'public',
    summary: 'Integrations on offer, for the public website',
    description: 'The kinds and the listed integrations with their names, descriptions and whether they are live; no settings schemas.',
    response: PublicIntegrationCatalogResponse,
    status: 200,
    handler: (req: RouteRequest) => publicIntegrationCatalog(req.context),
  },
  {
    operationId: 'storeIntegrations.productFeedXml',
    method: 'GET',
    path: '/store-integrations/public/stores/{storeId}/feeds/{id}/products.xml',
    auth: 'public',
    summary: 'Product feed of a store (RSS 2.0, Google Merchant Center)',
    description: FEED_DESCRIPTION,
    query: { token: feedToken() },
    response: ProductFeedXml,
    status: 200,
    handler: feedHandler('xml'),
  },
  {
    operationId: 'storeIntegrations.productFeedCsv',
    method: 'GET',
    path: '/store-integrations/public/stores/{storeId}/feeds/{id}/products.csv',
    auth: 'public',
    summary: 'Product feed of a store (CSV)',
    description: FEED_DESCRIPTION,
    query: { token: feedToken() },
    response: ProductFeedCsv,
    status: 200,
    handler: feedHandler('csv'),
  },
  {
    operationId: 'storeIntegrations.storefront',
    method: 'GET',
    path: '/store-integrations/public/stores/{storeId}/storefront',
    auth: 'public',
    summary: 'What the storefront adds to its pages for the store’s integrations',
    description:
      "Extension. The store's enabled analytics integrations, each as its tag: the provider, its validated setting, the script (only from the provider's fixed host) and the hosts the page's Content-Security-Policy must allow. 404 store_not_found for an unknown or archived store.",
    response: StorefrontIntegrationsResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => storefrontIntegrations(req.context, req.params.storeId!),
  },
]);

/** Operations beyond the specification's listing (api/routes/index.ts). */
export const storeIntegrationExtensionOperationIds = [
  'storeIntegrations.productFeedXml',
  'storeIntegrations.productFeedCsv',
  'storeIntegrations.storefront',
];
