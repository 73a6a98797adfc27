/**
 * Notification preferences: a customer's choices per category, and the tenant's policies and digest.
 */
import { defineRoutes } from '../http/route';
import {
  UpdateNotificationPreferenceDto,
  UpsertTenantNotificationDigestDto,
  UpsertTenantNotificationPoliciesDto,
  UpsertTenantNotificationPolicyDto,
  notificationCategoryParam,
} from './notification-preferences.schemas';

export const notificationPreferencesRoutes = defineRoutes({ tag: 'notification-preferences', auth: 'merchant' }, [
  {
    operationId: 'notificationPreferences.getCustomer',
    method: 'GET',
    path: '/notification-preferences/customers/{customerId}',
    summary: "A customer's notification preferences, per category",
    status: 200,
  },
  {
    operationId: 'notificationPreferences.updateCustomerCategory',
    method: 'PUT',
    path: '/notification-preferences/customers/{customerId}/{category}',
    summary: "Set a customer's preference for one notification category",
    params: { category: notificationCategoryParam },
    body: UpdateNotificationPreferenceDto,
    status: 200,
  },
  {
    operationId: 'notificationPreferences.listPolicies',
    method: 'GET',
    path: '/tenant-notification-preferences/policies',
    summary: "The tenant's notification policies",
    status: 200,
  },
  {
    operationId: 'notificationPreferences.upsertPolicy',
    method: 'PUT',
    path: '/tenant-notification-preferences/policies',
    summary: 'Create or replace one notification policy of the tenant',
    body: UpsertTenantNotificationPolicyDto,
    status: 200,
  },
  {
    operationId: 'notificationPreferences.upsertPolicies',
    method: 'PUT',
    path: '/tenant-notification-preferences/policies/batch',
    summary: 'Create or replace several notification policies of the tenant at once',
    body: UpsertTenantNotificationPoliciesDto,
    status: 200,
  },
  {
    operationId: 'notificationPreferences.getDigest',
    method: 'GET',
    path: '/tenant-notification-preferences/digest',
    summary: "The tenant's notification digest settings",
    status: 200,
  },
  {
    operationId: 'notificationPreferences.upsertDigest',
    method: 'PUT',
    path: '/tenant-notification-preferences/digest',
    summary: "Create or replace the tenant's notification digest settings",
    body: UpsertTenantNotificationDigestDto,
    status: 200,
  },
]);
