/**
 * DTOs and response schemas of partner apps (an extension of the app store): a partner's app
 * listings, their released versions and development installs on the partner's sandboxes.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { cursor, positiveInt, text } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';
import { SCOPE_PATTERN } from '../api-keys/api-keys.scopes';
import { WEBHOOK_TOPICS } from '../webhooks/events';
import { SEMVER_MAX_LENGTH } from '../../domain/semver';

/** Slugs as the catalog stores them: lower-case letters, digits and hyphens, starting with a letter or digit. */
export const APP_SLUG = /^[a-z0-9][a-z0-9-]*$/;

export const PARTNER_APP_SCOPES_MAX = 50;

export const CreatePartnerAppDto = typedDto(
  'CreatePartnerAppDto',
  t.object({
    slug: t
      .string(
        text(1, 100)
          .pattern(APP_SLUG, 'slug')
          .description('Unique in the whole catalog: 1 to 100 lower-case letters, digits and hyphens (409 partner_app_slug_taken).'),
      )
      .required(),
    name: t.string(text(1, 100).trim().description('The name shown in the catalog, 1 to 100 characters.')).required(),
    summary: t.string(text(1, 300).trim().description('One line for the catalog, 1 to 300 characters.')).required(),
    description: t
      .string(Joi.string().max(5000).allow('').description('Longer text, at most 5000 characters; empty: the summary stands in.'))
      .default(''),
    category: t
      .string(
        text(1, 60)
          .pattern(APP_SLUG, 'category')
          .description('The catalog category, 1 to 60 lower-case letters, digits and hyphens (such as marketing).'),
      )
      .required(),
    scopes: t
      .array(
        t.string(Joi.string().pattern(SCOPE_PATTERN, 'scope').invalid('*')),
        Joi.array()
          .max(PARTNER_APP_SCOPES_MAX)
          .unique()
          .description('What the app may read and change once enabled: distinct `<tag>:read|write` scopes of the API keys, at most 50.'),
      )
      .default([]),
    webhookTopics: t
      .array(
        t.oneOf(WEBHOOK_TOPICS),
        Joi.array()
          .max(WEBHOOK_TOPICS.length)
          .unique()
          .description('The webhook topics the app receives from a store it is installed on (distinct topics of the catalog).'),
      )
      .default([]),
  }),
);

export const ReleaseAppVersionDto = typedDto(
  'ReleaseAppVersionDto',
  t.object({
    version: t
      .string(
        text(5, SEMVER_MAX_LENGTH).description(
          'A semantic version (semver 2.0.0, such as 1.4.0 or 2.0.0-rc.1+build.7), newer by precedence than the latest release (409 app_version_not_newer).',
        ),
      )
      .required(),
    notes: t.string(Joi.string().max(2000).allow('').description('Release notes, at most 2000 characters.')).nullable(),
  }),
);

export const DevInstallDto = typedDto(
  'DevInstallDto',
  t.object({
    sandboxToken: t
      .string(
        text(10, 200)
          .pattern(/^sk_[A-Za-z0-9_-]+$/, 'sandbox token')
          .description(
            'The token of a sandbox (POST /sandbox): proves the sandbox is yours; the first partner to use it claims it for development.',
          ),
      )
      .required(),
  }),
);

export const partnerAppListQuery = { cursor: cursor(), limit: positiveInt(100).default(50) };

// ------------------------------------------------------------------------------------------ responses

const iso = () => Joi.string().isoDate();

const PartnerApp = Joi.object({
  id: Joi.string().required(),
  slug: Joi.string().required(),
  name: Joi.string().required(),
  summary: Joi.string().required(),
  description: Joi.string().allow('').required(),
  category: Joi.string().required(),
  developer: Joi.string().required(),
  scopes: Joi.array().items(Joi.string()).required(),
  webhookTopics: Joi.array().items(Joi.string()).required(),
  published: Joi.boolean().required().description('False until the first version is released; then listed in the public catalog.'),
  currentVersion: Joi.string().allow(null).required().description('The latest released version; null before the first release.'),
  createdAt: iso().required(),
}).label('PartnerApp');

const AppVersion = Joi.object({
  id: Joi.string().required(),
  listingId: Joi.string().required(),
  version: Joi.string().required(),
  notes: Joi.string().allow(null).required(),
  releasedAt: iso().required(),
}).label('AppVersion');

export const PartnerAppResponse = dto('PartnerAppResponse', PartnerApp);
export const PartnerAppListResponse = dto(
  'PartnerAppListResponse',
  Joi.object({
    items: Joi.array().items(PartnerApp).required(),
    nextCursor: Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);
export const AppVersionResponse = dto('AppVersionResponse', AppVersion);
export const AppVersionListResponse = dto(
  'AppVersionListResponse',
  Joi.object({ items: Joi.array().items(AppVersion).required().description('Newest first.') }),
);

export const DevInstallResponse = dto(
  'DevInstallResponse',
  Joi.object({
    appId: Joi.string().required(),
    slug: Joi.string().required(),
    sandboxTenantId: Joi.string().required(),
    storeId: Joi.string().required().description("The sandbox's store the app is enabled on."),
    enabled: Joi.boolean().valid(true).required(),
    endpoint: Joi.object({
      id: Joi.string().required(),
      url: Joi.string()
        .required()
        .description('`svc-dev://<slug>`: delivered by pull (the forwarding feed), never pushed by the dispatcher.'),
      topics: Joi.array().items(Joi.string()).required(),
      secret: Joi.string()
        .required()
        .description('The signing secret, shown once: a new one on every development install (the previous one stops signing).'),
    }).required(),
  }),
);
