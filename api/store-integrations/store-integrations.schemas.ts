/**
 * DTOs and response schemas of the store integrations area (docs/integrations.md): the catalog, a
 * store's connected integrations, and the public product feed's parameters.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto, type InputOf } from '../http/typed-schema';

export const INTEGRATION_KINDS = ['marketplace_feed', 'analytics', 'shipping_carrier', 'accounting_export'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

/** Most settings keys a connect request may send (the largest integration takes three). */
const MAX_SETTINGS_KEYS = 20;

export const integrationSlug = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[a-z0-9][a-z0-9-]{1,62}$/, 'integration slug')
    .description('The slug of an integration of the catalog (GET /store-integrations/catalog), e.g. google-merchant-feed.');

const settingsObject = Joi.object()
  .pattern(Joi.string().max(64), Joi.alternatives().try(Joi.string().max(2000), Joi.boolean()))
  .max(MAX_SETTINGS_KEYS)
  .description(
    "The integration's settings, keyed as its settingsSchema in the catalog says (strings and booleans). Unknown keys, missing required fields and values of the wrong type, pattern or length answer 400 store_integration_settings_invalid. Secret fields are stored encrypted and never answered; connecting an integration again may leave out a secret that is already stored (it is kept).",
  );

export const ConnectStoreIntegrationDto = typedDto(
  'ConnectStoreIntegrationDto',
  t.object({
    storeId: t.storeId(),
    integration: t.string(integrationSlug()).required(),
    settings: t.custom<Record<string, string | boolean>>(settingsObject).default({}),
    enabled: t.boolean(Joi.boolean().description('Whether the integration works once connected (default true).')).default(true),
  }),
);
export type ConnectStoreIntegrationInput = InputOf<typeof ConnectStoreIntegrationDto>;

export const ToggleStoreIntegrationDto = typedDto(
  'ToggleStoreIntegrationDto',
  t.object({
    enabled: t
      .boolean(Joi.boolean().description('true turns the integration on, false off (a default turned off stops being the default).'))
      .required(),
  }),
);
export type ToggleStoreIntegrationInput = InputOf<typeof ToggleStoreIntegrationDto>;

// ---- responses ---------------------------------------------------------------------------------

const kind = () => Joi.string().valid(...INTEGRATION_KINDS);

const SettingField = Joi.object({
  key: Joi.string().required(),
  type: Joi.string().valid('string', 'boolean', 'enum').required(),
  description: Joi.string().required(),
  required: Joi.boolean(),
  secret: Joi.boolean().description('Stored encrypted; never answered by any read.'),
  pattern: Joi.string().description('A regular expression the whole value must match.'),
  minLength: Joi.number().integer(),
  maxLength: Joi.number().integer(),
  values: Joi.array().items(Joi.string()),
  default: Joi.alternatives().try(Joi.string(), Joi.boolean()),
}).label('IntegrationSettingField');

const KindView = Joi.object({
  kind: kind().required(),
  name: Joi.string().required(),
  description: Joi.string().required(),
}).label('IntegrationKind');

const PublicCatalogItem = Joi.object({
  slug: Joi.string().required(),
  kind: kind().required(),
  name: Joi.string().required(),
  description: Joi.string().required(),
  live: Joi.boolean()
    .required()
    .description('true: the integration does real work here; false: a catalog entry that keeps its settings but does nothing yet.'),
}).label('PublicIntegration');

const CatalogItem = PublicCatalogItem.keys({
  settingsSchema: Joi.array().items(SettingField).required(),
}).label('Integration');

export const IntegrationCatalogResponse = dto(
  'IntegrationCatalogResponse',
  Joi.object({
    kinds: Joi.array().items(KindView).required(),
    items: Joi.array().items(CatalogItem).required().description('Every integration on offer, by kind and position.'),
  }),
);

export const PublicIntegrationCatalogResponse = dto(
  'PublicIntegrationCatalogResponse',
  Joi.object({
    kinds: Joi.array().items(KindView).required(),
    items: Joi.array()
      .items(PublicCatalogItem)
      .required()
      .description('The integrations the public website lists, without their settings.'),
  }),
);

const SecretView = Joi.object({
  key: Joi.string().required(),
  set: Joi.boolean().valid(true).required(),
  last4: Joi.string().allow(null).required().description('The last four characters; null for a secret shorter than 12 characters.'),
}).label('IntegrationSecretHint');

const FeedView = Joi.object({
  xmlUrl: Joi.string()
    .uri()
    .required()
    .description('The RSS 2.0 feed (Google Merchant Center namespace); with ?token= when access is token.'),
  csvUrl: Joi.string().uri().required(),
}).label('ProductFeedUrls');

const StoreIntegration = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  integration: Joi.string().required(),
  kind: kind().required(),
  name: Joi.string().required(),
  live: Joi.boolean().required(),
  enabled: Joi.boolean().required(),
  isDefault: Joi.boolean().required(),
  settings: Joi.object()
    .pattern(Joi.string(), Joi.alternatives().try(Joi.string(), Joi.boolean()))
    .required()
    .description('The settings without the secret fields, defaults filled in.'),
  secrets: Joi.array().items(SecretView).required().description('Which secret fields are set; never their values.'),
  feed: FeedView.allow(null).required().description('Product feeds only: where the feed is read; null for other kinds.'),
  createdAt: Joi.string().isoDate().required(),
  updatedAt: Joi.string().isoDate().required(),
}).label('StoreIntegration');

export const StoreIntegrationResponse = dto('StoreIntegrationResponse', StoreIntegration);
export const StoreIntegrationListResponse = dto(
  'StoreIntegrationListResponse',
  Joi.object({ items: Joi.array().items(StoreIntegration).required().description('By kind, then oldest first.') }),
);
export const DisconnectedIntegrationResponse = dto(
  'DisconnectedIntegrationResponse',
  Joi.object({
    id: Joi.string().required(),
    storeId: Joi.string().required(),
    integration: Joi.string().required(),
    kind: kind().required(),
    disconnected: Joi.boolean().valid(true).required(),
    wasDefault: Joi.boolean().required().description('When true the store has no default of this kind until it sets another.'),
  }),
);

const AnalyticsTag = Joi.object({
  provider: Joi.string().valid('google-analytics-4', 'plausible-analytics').required(),
  scriptSrc: Joi.string().uri().required().description('The script the storefront loads (on an allow-listed host).'),
  measurementId: Joi.string().description('google-analytics-4 only.'),
  domain: Joi.string().description('plausible-analytics only.'),
  scriptHosts: Joi.array().items(Joi.string()).required().description('Origins the page must allow for scripts.'),
  connectHosts: Joi.array().items(Joi.string()).required().description('Origins the page must allow for the beacons it sends.'),
}).label('StorefrontAnalyticsTag');

export const StorefrontIntegrationsResponse = dto(
  'StorefrontIntegrationsResponse',
  Joi.object({
    storeId: Joi.string().required(),
    analytics: Joi.array().items(AnalyticsTag).required().description('The enabled analytics integrations of the store; empty when none.'),
  }),
);

export const feedToken = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Za-z0-9_-]{43}$/, 'feed token')
    .description('The feed token; required when the feed’s access setting is token, ignored otherwise.');
