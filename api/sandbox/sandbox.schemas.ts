/** DTOs of the sandbox area (extensions: the specification describes the sandbox but lists no operations). */
import Joi from 'joi';
import { dto, type BodyContentType, type NamedSchema } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, oneOf, uuid } from '../http/schema-types';
import { SCOPE_PATTERN } from '../api-keys/api-keys.scopes';

export const TEST_CARD_FLOWS = ['SUCCESS', 'THREE_DS_CHALLENGE', 'FRAUD_DECLINE', 'REFUND'] as const;
export const TEST_CARD_PROVIDERS = ['iyzico', 'stripe', 'adyen'] as const;
/**
 * Lifetimes of simulated tokens: from one day in the past (already expired) to 30 days (the lifetime
 * of a refresh credential; a rehearsal needs no longer-lived token). The calling credential's own
 * expiry bounds it further (sandbox.tokens.ts).
 */
export const TOKEN_TTL_MIN = -86_400;
export const TOKEN_TTL_MAX = 2_592_000;

export const CreateSandboxDto = dto(
  'CreateSandboxDto',
  Joi.object({
    email: Joi.string()
      .trim()
      .email({ tlds: false })
      .max(254)
      .required()
      .description('Where the sandbox belongs; no account is created and no card is asked for.'),
  }),
);

const counts = Joi.object({
  products: Joi.number().integer().min(0).required(),
  customers: Joi.number().integer().min(0).required(),
  orders: Joi.number().integer().min(0).required(),
  vendors: Joi.number().integer().min(0).required(),
}).label('SandboxCounts');

const statusFields = {
  id: uuid().required(),
  email: Joi.string().required(),
  tenantId: uuid().required(),
  storeId: uuid().required().description('The sandbox store: the storeId of store-scoped operations.'),
  tokenPrefix: Joi.string().required().description('The visible prefix of the sandbox token (the secret is shown once, at creation).'),
  createdAt: dateTime().required(),
  lastResetAt: dateTime().allow(null).required(),
  resetCount: Joi.number().integer().min(0).required(),
  searchReady: Joi.boolean()
    .required()
    .description(
      'The seeded products are in the search index (true when creation or reset answers, unless Meilisearch was unreachable; the indexer then catches up).',
    ),
  indexedAt: dateTime().allow(null).required(),
  visualSearch: Joi.boolean().required().description('The seeded products carry image vectors and visual search is enabled.'),
  counts: counts.required().description('What the sandbox holds now.'),
  defaults: counts.required().description('The factory data: 100 products, 50 customers, 200 orders, 3 vendors.'),
};

export const SandboxStatusResponse = dto('SandboxStatusResponse', Joi.object(statusFields));

export const SandboxCreatedResponse = dto(
  'SandboxCreatedResponse',
  Joi.object({
    ...statusFields,
    token: Joi.string()
      .required()
      .description(
        'The sandbox token: send it as Authorization: Bearer <SANDBOX_TOKEN>. Shown once. It is a store API key of the sandbox with every scope and no expiry.',
      ),
  }),
);

export const SandboxResetResponse = dto(
  'SandboxResetResponse',
  Joi.object({
    ...statusFields,
    durationMs: Joi.number().integer().min(0).required().description('How long the reset took on the server, indexing included.'),
  }),
);

export const IssueTokenDto = typedDto(
  'IssueSandboxTokenDto',
  t.object({
    scopes: t
      .array(
        t.string(Joi.string().pattern(SCOPE_PATTERN).message('must be <tag>:read, <tag>:write or *')),
        Joi.array()
          .min(0)
          .max(100)
          .description(
            'Scopes of the token, as API keys have them (`<tag>:read` for GET operations of a tag, `<tag>:write` for the others, `*` for all); an empty list gives a token that every operation refuses with 403. Only scopes the calling token holds itself (any, for a `*` token): 403 scope_not_held otherwise.',
          ),
      )
      .required(),
    expiresInSeconds: t
      .number(
        Joi.number()
          .integer()
          .min(TOKEN_TTL_MIN)
          .max(TOKEN_TTL_MAX)
          .description(
            "Lifetime from now, -86400 to 2592000 seconds (30 days); 0 or less gives a token that is already expired (401 invalid_api_key). Never longer than the calling credential has left (its expiry, or a member session's end): 403 token_lifetime_exceeded otherwise.",
          ),
      )
      .required(),
    refresh: t
      .boolean(
        Joi.boolean().description(
          "Also issue a refresh credential (rt_…) to rehearse refresh. It lasts 30 days, never past the calling credential's expiry, and no token refreshed from it outlives that expiry either.",
        ),
      )
      .default(false),
  }),
);

export const RefreshTokenDto = dto('RefreshSandboxTokenDto', Joi.object({ refreshToken: Joi.string().min(10).max(200).required() }));

export const IssuedTokenResponse = dto(
  'IssuedSandboxTokenResponse',
  Joi.object({
    token: Joi.string().required().description('Send as Authorization: Bearer <token>. Shown once.'),
    tokenId: uuid().required(),
    prefix: Joi.string().required(),
    scopes: Joi.array().items(Joi.string()).required(),
    expiresAt: dateTime().required(),
    expired: Joi.boolean().required(),
    refreshToken: Joi.string()
      .allow(null)
      .required()
      .description('Present when refresh was asked for (and on every refresh): trade it once at POST /sandbox/tokens/refresh.'),
    refreshExpiresAt: dateTime().allow(null).required(),
  }),
);

const TestCardItem = Joi.object({
  provider: oneOf(TEST_CARD_PROVIDERS).required(),
  flow: oneOf(TEST_CARD_FLOWS).required(),
  brand: Joi.string().required(),
  number: Joi.string()
    .pattern(/^[0-9]{12,19}$/)
    .required(),
  expiryMonth: Joi.number().integer().min(1).max(12).required(),
  expiryYear: Joi.number().integer().required(),
  cvc: Joi.string().required(),
  holderName: Joi.string().required(),
  outcome: Joi.string().required(),
  threeDsCode: Joi.string().allow(null).required(),
}).label('SandboxTestCard');

export const TestCardListResponse = dto('SandboxTestCardList', Joi.object({ items: Joi.array().items(TestCardItem).required() }));

export const testCardQuery = {
  provider: oneOf(TEST_CARD_PROVIDERS).description('Only the cards of this provider.'),
  flow: oneOf(TEST_CARD_FLOWS).description('Only the cards of this flow.'),
};

/**
 * The PNG of a seed image. The route table knows JSON and CSV bodies; this binary answer is declared
 * with its own content type (the router sends the Buffer as is with the type the handler sets).
 */
export const SeedImagePng: NamedSchema = {
  name: 'SandboxSeedImage',
  schema: Joi.string().description('A 256×256 PNG image.'),
  contentType: 'image/png' as unknown as BodyContentType,
  pending: false,
};
