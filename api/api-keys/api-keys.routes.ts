/** API keys per store (docs/accounts.md, "Accounts, access and the audit log"). */
import { csvDownload } from '../http/csv';
import { defineRoutes, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import { ApiKeyListResponse, ApiKeysCsv, CreateApiKeyDto, CreatedApiKeyResponse } from './api-keys.schemas';
import { createApiKey, exportApiKeys, listApiKeys, revokeApiKey, type CreateApiKeyInput } from './api-keys.service';

type Params = Record<string, string>;

const readers = "Any member of the tenant, or an API key of this store with api-keys:read. Another tenant's store answers 404.";
const admins =
  'Owners and admins of the tenant (staff 403 insufficient_role); API keys cannot manage keys (403 api_key_not_allowed). Audited.';
const CREATE_DESCRIPTION = `${admins} The response holds the whole key once; only its prefix and a hash are stored. The store must be the caller's and not archived.`;
const REVOKE_DESCRIPTION = `${admins} The key stops working at once (401). Revoking a revoked key of the tenant answers 204 again; another tenant's key answers 404.`;

export const apiKeyRoutes = defineRoutes({ tag: 'api-keys', auth: 'merchant' }, [
  {
    operationId: 'apiKeys.list',
    method: 'GET',
    path: '/api-keys',
    summary: 'API keys of a store',
    description: `${readers} Secrets are never listed.`,
    query: { storeId: storeId() },
    response: ApiKeyListResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => listApiKeys(req.context, req.query.storeId),
  },
  {
    operationId: 'apiKeys.create',
    method: 'POST',
    path: '/api-keys',
    summary: 'Create an API key; the secret is shown once',
    description: CREATE_DESCRIPTION,
    body: CreateApiKeyDto,
    response: CreatedApiKeyResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, CreateApiKeyInput>) => createApiKey(req.context, req.body),
  },
  {
    operationId: 'apiKeys.export',
    method: 'GET',
    path: '/api-keys/export',
    summary: 'Export the API keys of a store as CSV',
    description: `${readers} A download (Content-Disposition: attachment; filename="api-keys-<storeId>.csv").`,
    query: { storeId: storeId() },
    response: ApiKeysCsv,
    status: 200,
    handler: csvDownload((ctx, query: Params) => exportApiKeys(ctx, query.storeId!)),
  },
  {
    operationId: 'apiKeys.revoke',
    method: 'DELETE',
    path: '/api-keys/{id}',
    summary: 'Revoke an API key',
    description: REVOKE_DESCRIPTION,
    status: 204,
    handler: (req: RouteRequest<Params>) => revokeApiKey(req.context, req.params.id),
  },
]);
