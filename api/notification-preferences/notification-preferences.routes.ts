/**
 * Notification preferences: a customer's choices per category, and the tenant's policies and digest
 * (docs/messaging.md, "Preferences, policies and the digest"). Any member or API key of the tenant.
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import {
  UpdateNotificationPreferenceDto,
  UpsertTenantNotificationDigestDto,
  UpsertTenantNotificationPoliciesDto,
  UpsertTenantNotificationPolicyDto,
  notificationCategoryParam,
  type DigestInput,
  type PolicyInput,
} from './notification-preferences.schemas';
import {
  CustomerPreferencesResponse,
  TenantDigestResponse,
  TenantPolicyListResponse,
  TenantPolicyResponse,
} from './notification-preferences.responses';
import {
  getCustomerPreferences,
  getDigest,
  listPolicies,
  updateCustomerPreference,
  upsertDigest,
  upsertPolicies,
  upsertPolicy,
} from './notification-preferences.service';

type Params = Record<string, string>;

const CATEGORIES =
  'Categories: TRANSACTIONAL (receipts, password resets: cannot be turned off), ORDER_UPDATES, MARKETING, NEWSLETTER. A category never set is enabled.';

export const notificationPreferencesRoutes = defineRoutes({ tag: 'notification-preferences', auth: 'merchant' }, [
  {
    operationId: 'notificationPreferences.getCustomer',
    method: 'GET',
    path: '/notification-preferences/customers/{customerId}',
    summary: "A customer's notification preferences, per category",
    description: `Every category with the customer's choice, the tenant's policy and the effective value. ${CATEGORIES} Another tenant's customer: 404 customer_not_found.`,
    response: CustomerPreferencesResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getCustomerPreferences(req.context, req.params.customerId!),
  },
  {
    operationId: 'notificationPreferences.updateCustomerCategory',
    method: 'PUT',
    path: '/notification-preferences/customers/{customerId}/{category}',
    summary: "Set a customer's preference for one notification category",
    description: `Answers all the customer's preferences. ${CATEGORIES} Turning TRANSACTIONAL off: 409 transactional_required.`,
    params: { category: notificationCategoryParam },
    body: UpdateNotificationPreferenceDto,
    response: CustomerPreferencesResponse,
    status: 200,
    problems: [404, 409],
    handler: (req: RouteRequest<Params, Params, { enabled: boolean }>) =>
      updateCustomerPreference(req.context, req.params.customerId!, req.params.category!, req.body.enabled),
  },
  {
    operationId: 'notificationPreferences.listPolicies',
    method: 'GET',
    path: '/tenant-notification-preferences/policies',
    summary: "The tenant's notification policies",
    description: `One entry per category. ${CATEGORIES}`,
    response: TenantPolicyListResponse,
    status: 200,
    handler: (req: RouteRequest) => listPolicies(req.context),
  },
  {
    operationId: 'notificationPreferences.upsertPolicy',
    method: 'PUT',
    path: '/tenant-notification-preferences/policies',
    summary: 'Create or replace one notification policy of the tenant',
    description: 'A disabled category sends nothing to any customer of the tenant. Turning TRANSACTIONAL off: 409 transactional_required.',
    body: UpsertTenantNotificationPolicyDto,
    response: TenantPolicyResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, PolicyInput>) => upsertPolicy(req.context, req.body),
  },
  {
    operationId: 'notificationPreferences.upsertPolicies',
    method: 'PUT',
    path: '/tenant-notification-preferences/policies/batch',
    summary: 'Create or replace several notification policies of the tenant at once',
    description: 'All or none (one transaction); each category at most once. Answers every policy.',
    body: UpsertTenantNotificationPoliciesDto,
    response: TenantPolicyListResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, { policies: PolicyInput[] }>) => upsertPolicies(req.context, req.body),
  },
  {
    operationId: 'notificationPreferences.getDigest',
    method: 'GET',
    path: '/tenant-notification-preferences/digest',
    summary: "The tenant's notification digest settings",
    description: 'Never set: frequency OFF, hour 8, UTC.',
    response: TenantDigestResponse,
    status: 200,
    handler: (req: RouteRequest) => getDigest(req.context),
  },
  {
    operationId: 'notificationPreferences.upsertDigest',
    method: 'PUT',
    path: '/tenant-notification-preferences/digest',
    summary: "Create or replace the tenant's notification digest settings",
    description:
      "DAILY or WEEKLY: non-transactional e-mails to the tenant's customers are held and sent as one digest e-mail per customer at `hour` in `timeZone` (WEEKLY: on Mondays); OFF sends them at once (held ones go out in the next digest run). timeZone: an IANA name (400 time_zone_unknown otherwise).",
    body: UpsertTenantNotificationDigestDto,
    response: TenantDigestResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, DigestInput>) => upsertDigest(req.context, req.body),
  },
]);
