/**
 * The sandbox (docs/accounts.md, "Sandbox"): every operation here is an extension, since the
 * specification describes the sandbox (a token is created with an e-mail address) but lists no
 * operation for it (docs/decisions.md, Extensions).
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import { int } from '../http/schema-types';
import { listTestCards, type TestCardFlow } from './sandbox.cards';
import { seedImagePng } from './sandbox.images';
import {
  CreateSandboxDto,
  IssuedTokenResponse,
  IssueTokenDto,
  RefreshTokenDto,
  SandboxCreatedResponse,
  SandboxResetResponse,
  SandboxStatusResponse,
  SeedImagePng,
  TestCardListResponse,
  testCardQuery,
} from './sandbox.schemas';
import { createSandbox, getSandbox, resetSandbox } from './sandbox.service';
import { issueSimulatedToken, refreshSimulatedToken, type IssueTokenInput } from './sandbox.tokens';
import { sandboxError } from './sandbox.errors';

type Params = Record<string, string>;

export const sandboxExtensionOperationIds = [
  'sandbox.create',
  'sandbox.get',
  'sandbox.reset',
  'sandbox.issueToken',
  'sandbox.refreshToken',
  'sandbox.testCards',
  'sandbox.seedImage',
] as const;

const withToken =
  'Needs the sandbox token (or a simulated token with the sandbox scope: sandbox:read for GET, sandbox:write otherwise); a token of a tenant that is not a sandbox answers 404 sandbox_not_found.';

export const sandboxRoutes = defineRoutes({ tag: 'sandbox', auth: 'merchant' }, [
  {
    operationId: 'sandbox.create',
    method: 'POST',
    path: '/sandbox',
    auth: 'public',
    summary: 'Create a sandbox with an e-mail address (extension)',
    description:
      "Extension: a sandbox is created with an e-mail address alone, with no account and no payment card. Creates a tenant of its own (kind sandbox) with one store (currency TRY) seeded with the factory data: 100 published products (titles, descriptions, 14 categories, 10 brands, variants, prices, stock, tags, generated images), 50 customers, 200 orders (their quantities are the products' sales counts) and 3 vendors; the products are in the search index, with image vectors, when it answers. Answers 201 with the sandbox token, shown once: send it as Authorization: Bearer <SANDBOX_TOKEN> to any store operation of this API (same schema, validation and answers as production; no money moves). Rate-limited per client address (10 an hour) and per e-mail address (3 an hour): 429 with Retry-After.",
    body: CreateSandboxDto,
    response: SandboxCreatedResponse,
    status: 201,
    problems: [429],
    handler: (req: RouteRequest<Params, unknown, { email: string }>) => createSandbox(req.context, req.body),
  },
  {
    operationId: 'sandbox.get',
    method: 'GET',
    path: '/sandbox',
    summary: "The caller's sandbox: counts, creation and last reset (extension)",
    description: `Extension. ${withToken}`,
    response: SandboxStatusResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getSandbox(req.context),
  },
  {
    operationId: 'sandbox.reset',
    method: 'POST',
    path: '/sandbox/reset',
    summary: 'Reset the sandbox to factory defaults (extension)',
    description: `Extension: rolls the sandbox back to its factory defaults, at any time; it is re-seeded in seconds. ${withToken} Everything of the sandbox is removed (products, customers, orders, categories, brands, tags, collections, API keys and simulated tokens, webhook endpoints and deliveries, settings) and the factory data is written again with new ids; the sandbox token, tenant and store ids stay. The audit log keeps its entries. Answers when the seed is committed and searchable, with durationMs. 30 resets an hour per sandbox (429).`,
    response: SandboxResetResponse,
    status: 200,
    problems: [429],
    handler: (req: RouteRequest<Params>) => resetSandbox(req.context),
  },
  {
    operationId: 'sandbox.issueToken',
    method: 'POST',
    path: '/sandbox/tokens',
    summary: 'Token simulator: issue a token with chosen scopes and lifetime (extension)',
    description: `Extension: a token simulator, to rehearse the OAuth flow, scope checks, expired tokens and refresh. ${withToken} The token is a store API key of the sandbox with the given scopes and lifetime (0 or less: already expired; at most 30 days). A token mints only within its own rights: scopes it holds itself (a * token, such as the sandbox token, any scope; otherwise 403 scope_not_held, so a sandbox:write token cannot mint *) and a lifetime that ends no later than its own (403 token_lifetime_exceeded); a signed-in member needs the owner or admin role and is bounded by the end of the session. With it, an operation outside its scopes answers 403 insufficient_scope and an expired token 401 invalid_api_key, exactly as production answers. refresh: true adds a refresh credential to rehearse POST /sandbox/tokens/refresh. A reset removes every simulated token.`,
    body: IssueTokenDto,
    response: IssuedTokenResponse,
    status: 201,
    handler: (req: RouteRequest<Params, unknown, IssueTokenInput>) => issueSimulatedToken(req.context, req.body),
  },
  {
    operationId: 'sandbox.refreshToken',
    method: 'POST',
    path: '/sandbox/tokens/refresh',
    auth: 'public',
    summary: 'Token simulator: trade a refresh credential for a new token (extension)',
    description:
      'Extension: the refresh rehearsal of the token simulator; no Authorization header (the token being refreshed may have expired). The refresh credential works once: the old token is revoked and a new token (same scopes; the same lifetime, at least one hour, but never past the expiry of the credential that minted the first token) comes with a new refresh credential of the same chain (refresh family). An unknown, expired or revoked credential answers 401 invalid_refresh_token; a credential used a second time 401 refresh_token_reused, and the whole family is revoked: the token issued from it, every later token and refresh credential of the chain (audited as sandbox.refresh_reused). 60 a minute per client address (429).',
    body: RefreshTokenDto,
    response: IssuedTokenResponse,
    status: 200,
    problems: [429],
    handler: (req: RouteRequest<Params, unknown, { refreshToken: string }>) => refreshSimulatedToken(req.context, req.body),
  },
  {
    operationId: 'sandbox.testCards',
    method: 'GET',
    path: '/sandbox/test-cards',
    summary: 'Test payment cards of three providers (extension)',
    description:
      'Extension: test cards of three payment providers, preloaded for success, 3DS challenge, fraud and refund flows. Static fixtures, the same for every sandbox; no money moves. Any member or API key of a tenant may read them (scope sandbox:read).',
    query: testCardQuery,
    response: TestCardListResponse,
    status: 200,
    handler: async (req: RouteRequest<Params, { provider?: string; flow?: TestCardFlow }>) => listTestCards(req.query),
  },
  {
    operationId: 'sandbox.seedImage',
    method: 'GET',
    path: '/sandbox/images/{n}',
    auth: 'public',
    summary: 'The image of seed product n (extension)',
    description:
      'Extension: the generated product images of the sandbox seed (the url of their product images), 1 to 100. A 256×256 PNG, the same in every sandbox; cacheable for a day.',
    params: { n: int(1, 100).required() },
    response: SeedImagePng,
    status: 200,
    handler: async (req: RouteRequest<Params>) => {
      const png = seedImagePng(Number(req.params.n) - 1);
      if (!png) throw sandboxError('image_not_found', 'There is no such seed image.');
      req.koa.type = 'image/png';
      req.koa.set('Cache-Control', 'public, max-age=86400');
      return png;
    },
  },
]);
