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
import {
  CREATE_DESCRIPTION,
  GET_DESCRIPTION,
  ISSUE_TOKEN_DESCRIPTION,
  REFRESH_TOKEN_DESCRIPTION,
  RESET_DESCRIPTION,
  TEST_CARDS_DESCRIPTION,
} from './sandbox.descriptions';

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

export const sandboxRoutes = defineRoutes({ tag: 'sandbox', auth: 'merchant' }, [
  {
    operationId: 'sandbox.create',
    method: 'POST',
    path: '/sandbox',
    auth: 'public',
    summary: 'Create a sandbox with an e-mail address (extension)',
    description: CREATE_DESCRIPTION,
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
    description: GET_DESCRIPTION,
    response: SandboxStatusResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getSandbox(req.context),
  },
  {
    operationId: 'sandbox.reset',
    method: 'POST',
    path: '/sandbox/reset',
    summary: 'Reset the sandbox to factory defaults (extension)',
    description: RESET_DESCRIPTION,
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
    description: ISSUE_TOKEN_DESCRIPTION,
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
    description: REFRESH_TOKEN_DESCRIPTION,
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
    description: TEST_CARDS_DESCRIPTION,
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
