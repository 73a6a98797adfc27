/** API keys per store (document 2, "API keys and audit log"). */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { ApiKeysCsv, CreateApiKeyDto } from './api-keys.schemas';

export const apiKeyRoutes = defineRoutes({ tag: 'api-keys', auth: 'merchant' }, [
  { operationId: 'apiKeys.list', method: 'GET', path: '/api-keys', summary: 'API keys of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'apiKeys.create', method: 'POST', path: '/api-keys', summary: 'Create an API key; the secret is shown once', body: CreateApiKeyDto, status: 201 },
  { operationId: 'apiKeys.export', method: 'GET', path: '/api-keys/export', summary: 'Export the API keys of a store as CSV', query: { storeId: storeId() }, response: ApiKeysCsv, status: 200 },
  { operationId: 'apiKeys.revoke', method: 'DELETE', path: '/api-keys/{id}', summary: 'Revoke an API key', status: 204 },
]);
