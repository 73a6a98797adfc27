/** Organization: the caller's tenant and its stores (docs/accounts.md). */
import { defineRoutes, type RouteRequest } from '../http/route';
import { text } from '../http/schema-types';
import {
  CheckSlugResponse,
  CreateStoreDto,
  OnboardingStatusResponse,
  OrganizationSummaryResponse,
  StoreReadinessResponse,
  StoreResponse,
  TenantResponse,
  UpdateStoreDto,
  UpdateTenantDto,
} from './organization.schemas';
import {
  checkSlug,
  onboardingStatus,
  organizationSummary,
  storeReadiness,
  updateTenant,
  type UpdateTenantInput,
} from './organization.service';
import {
  archiveStore,
  createDefaultStore,
  createStore,
  updateStore,
  type CreateStoreInput,
  type UpdateStoreInput,
} from './organization.stores.service';

/** Path and query parameters as joi delivered them (validated by the row's schemas). */
type Params = Record<string, string>;

const members = 'Any member of the tenant; API keys cannot call it (403 api_key_not_allowed).';
const admins = 'Owners and admins of the tenant (staff 403 insufficient_role; API keys 403 api_key_not_allowed). Audited.';

export const organizationRoutes = defineRoutes({ tag: 'organization', auth: 'merchant' }, [
  {
    operationId: 'organization.summary',
    method: 'GET',
    path: '/organization/summary',
    summary: 'Overview of the tenant and its stores',
    description: members,
    response: OrganizationSummaryResponse,
    status: 200,
    handler: (req) => organizationSummary(req.context),
  },
  {
    operationId: 'organization.onboardingStatus',
    method: 'GET',
    path: '/organization/onboarding-status',
    summary: 'Which onboarding steps the tenant has completed',
    description: `${members} Computed from the data on every call. Steps whose platform area is not built yet (publishing a product, checkout settings) are reported as not done with available: false.`,
    response: OnboardingStatusResponse,
    status: 200,
    handler: (req) => onboardingStatus(req.context),
  },
  {
    operationId: 'organization.updateTenant',
    method: 'PATCH',
    path: '/organization/tenant',
    summary: 'Update the tenant',
    description: admins,
    body: UpdateTenantDto,
    response: TenantResponse,
    status: 200,
    handler: (req: RouteRequest<object, object, UpdateTenantInput>) => updateTenant(req.context, req.body),
  },
  {
    operationId: 'organization.storeReadiness',
    method: 'GET',
    path: '/organization/stores/{id}/readiness',
    summary: 'What a store still lacks before it can sell',
    description: "Any member of the tenant, or an API key of this store with organization:read. Another tenant's store answers 404.",
    response: StoreReadinessResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => storeReadiness(req.context, req.params.id),
  },
  {
    operationId: 'organization.createDefaultStore',
    method: 'POST',
    path: '/organization/stores/default',
    summary: 'Create the default store of the tenant',
    description: `${admins} Named after the tenant, with a free slug derived from the name and the tenant's currency and time zone; 409 default_store_exists when the tenant has a default store.`,
    response: StoreResponse,
    status: 201,
    handler: (req) => createDefaultStore(req.context),
  },
  {
    operationId: 'organization.createStore',
    method: 'POST',
    path: '/organization/stores',
    summary: 'Create a store',
    description: `${admins} The first store of a tenant (or the first after its default was archived) becomes the default. A taken slug answers 409 slug_taken, a reserved one 400 slug_reserved.`,
    body: CreateStoreDto,
    response: StoreResponse,
    status: 201,
    handler: (req: RouteRequest<object, object, CreateStoreInput>) => createStore(req.context, req.body),
  },
  {
    operationId: 'organization.updateStore',
    method: 'PATCH',
    path: '/organization/stores/{id}',
    summary: 'Update a store',
    description: `${admins} An archived store takes no changes (409 store_archived). isDefault: true moves the default to this store. A change of currency, defaultLocale or priceVisibility also writes one outbox row for the store (topic store.updated, queue index), so cached public search answers of the store are dropped.`,
    body: UpdateStoreDto,
    response: StoreResponse,
    status: 200,
    handler: (req: RouteRequest<Params, object, UpdateStoreInput>) => updateStore(req.context, req.params.id, req.body),
  },
  {
    operationId: 'organization.archiveStore',
    method: 'DELETE',
    path: '/organization/stores/{id}',
    summary: 'Archive a store',
    description: `${admins} The store keeps its data and slug and takes no further changes; archiving it again changes nothing. The default store cannot be archived while other active stores exist (409 default_store_in_use); move the default first.`,
    status: 204,
    handler: (req: RouteRequest<Params>) => archiveStore(req.context, req.params.id),
  },
  {
    operationId: 'organization.checkSlug',
    method: 'GET',
    path: '/organization/public/check-slug',
    summary: 'Whether a store or tenant slug is free',
    description:
      'slug is the subject of the check, not a list filter, so it stays required; any string of 1 to 200 characters is accepted and the answer says whether it is well-formed and free (reason invalid, reserved or taken), with a free suggestion when it is not. Slugs are compared case-insensitively. Limited to 300 checks a minute per client address (429 with Retry-After).',
    auth: 'public',
    query: { slug: text(1, 200).required() },
    response: CheckSlugResponse,
    status: 200,
    handler: (req: RouteRequest<object, Params>) => checkSlug(req.context, req.query.slug),
  },
]);
