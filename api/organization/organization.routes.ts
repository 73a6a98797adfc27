/** Organization: the caller's tenant and its stores (document 2, "Organization"). */
import { defineRoutes } from '../http/route';
import { text } from '../http/schema-types';
import { CreateStoreDto, UpdateStoreDto, UpdateTenantDto } from './organization.schemas';

export const organizationRoutes = defineRoutes({ tag: 'organization', auth: 'merchant' }, [
  { operationId: 'organization.summary', method: 'GET', path: '/organization/summary', summary: 'Overview of the tenant and its stores', status: 200 },
  { operationId: 'organization.onboardingStatus', method: 'GET', path: '/organization/onboarding-status', summary: 'Which onboarding steps the tenant has completed', status: 200 },
  { operationId: 'organization.updateTenant', method: 'PATCH', path: '/organization/tenant', summary: 'Update the tenant', body: UpdateTenantDto, status: 200 },
  { operationId: 'organization.storeReadiness', method: 'GET', path: '/organization/stores/{id}/readiness', summary: 'What a store still lacks before it can sell', status: 200 },
  { operationId: 'organization.createDefaultStore', method: 'POST', path: '/organization/stores/default', summary: 'Create the default store of the tenant', status: 201 },
  { operationId: 'organization.createStore', method: 'POST', path: '/organization/stores', summary: 'Create a store', body: CreateStoreDto, status: 201 },
  { operationId: 'organization.updateStore', method: 'PATCH', path: '/organization/stores/{id}', summary: 'Update a store', body: UpdateStoreDto, status: 200 },
  { operationId: 'organization.archiveStore', method: 'DELETE', path: '/organization/stores/{id}', summary: 'Archive a store', status: 204 },
  {
    operationId: 'organization.checkSlug',
    method: 'GET',
    path: '/organization/public/check-slug',
    summary: 'Whether a store or tenant slug is free',
    description:
      'slug is the subject of the check, not a list filter, so it stays required; any string of 1 to 200 characters is accepted and the answer says whether it is well-formed and free.',
    auth: 'public',
    query: { slug: text(1, 200).required() },
    status: 200,
  },
]);
