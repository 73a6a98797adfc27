/** DTOs of the API keys area. */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { dateTime, oneOf, uuid } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';
import { knownScopes, SCOPE_PATTERN } from './api-keys.scopes';

const scope = (): Joi.StringSchema =>
  Joi.string()
    .max(100)
    .pattern(SCOPE_PATTERN, 'scope')
    .custom((value: string, helpers) => (knownScopes().has(value) || !SCOPE_PATTERN.test(value) ? value : helpers.error('scope.unknown')))
    .messages({
      'string.pattern.name': '{{#label}} must be <tag>:read, <tag>:write or *',
      'scope.unknown': '{{#label}} is not a scope of any merchant operation',
    })
    .description(
      '`<tag>:read` (GET operations) or `<tag>:write` (the others) for the tag of a merchant operation as the OpenAPI document lists it (for example `api-keys:read`, `organization:write`), or `*` for every merchant operation.',
    );

export const CreateApiKeyDto = typedDto(
  'CreateApiKeyDto',
  t.object({
    storeId: t.string(uuid().description('The store the key acts on; it can reach no other store.')).required(),
    name: t.string(Joi.string().trim().min(1).max(100).description('What the key is for, to recognise it in lists.')).required(),
    scopes: t.array(t.string(scope()), Joi.array().min(1).max(50).unique()).required(),
    expiresAt: t.date(dateTime().greater('now').description('When the key stops working (in the future); it never expires when left out.')),
  }),
);

const keyFields = {
  id: uuid().required(),
  name: Joi.string().required(),
  storeId: uuid().required(),
  prefix: Joi.string()
    .required()
    .description('The visible start of the key (`sk_` and 10 characters), to recognise it; the key is `<prefix>_<secret>`.'),
  scopes: Joi.array().items(Joi.string()).required(),
  createdAt: dateTime().required(),
  expiresAt: dateTime().allow(null).required(),
};

export const CreatedApiKeyResponse = dto(
  'CreatedApiKeyResponse',
  Joi.object({
    ...keyFields,
    key: Joi.string()
      .required()
      .description(
        'The whole secret key. It is shown in this response only and cannot be read again; send it as `X-API-Key` or `Authorization: Bearer`.',
      ),
  }),
);

export const ApiKeyItem = Joi.object({
  ...keyFields,
  createdBy: uuid().allow(null).required().description('The user who created it.'),
  lastUsedAt: dateTime().allow(null).required(),
  revokedAt: dateTime().allow(null).required(),
  status: oneOf(['active', 'revoked', 'expired']).required(),
}).label('ApiKeyItem');

export const ApiKeyListResponse = dto(
  'ApiKeyListResponse',
  Joi.object({
    items: Joi.array()
      .items(ApiKeyItem)
      .required()
      .description('Every key of the store, newest first, revoked and expired ones included; never the secrets.'),
    nextCursor: Joi.string().allow(null).required().description('Always null: a store has few keys and the list is not paged.'),
  }),
);

export const ApiKeysCsv = csvDocument(
  'ApiKeysCsv',
  'The API keys of a store, one row per key, newest first (never the secret). Columns: id, name, prefix, scopes (space-separated), status, createdAt, expiresAt, lastUsedAt, revokedAt, createdBy. Cells that begin with =, +, -, @, a tab or a carriage return are prefixed with an apostrophe against spreadsheet formula injection.',
);
