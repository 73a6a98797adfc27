/** DTOs and parameters of the notification preferences area (customer opt-ins, tenant policies and digest). */
import { pendingDto } from '../http/route';
import { text } from '../http/schema-types';

export const UpdateNotificationPreferenceDto = pendingDto('UpdateNotificationPreferenceDto');
export const UpsertTenantNotificationPolicyDto = pendingDto('UpsertTenantNotificationPolicyDto');
export const UpsertTenantNotificationPoliciesDto = pendingDto('UpsertTenantNotificationPoliciesDto');
export const UpsertTenantNotificationDigestDto = pendingDto('UpsertTenantNotificationDigestDto');

/**
 * `{category}`: a notification category key (for example `marketing` or `order-updates`): a letter,
 * then letters, digits, `_`, `-` or `.`; 1 to 64 characters (the specification does not type it).
 */
export const notificationCategoryParam = text(1, 64)
  .pattern(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'category key')
  .required()
  .description('Notification category key (a letter, then letters, digits, _, - or .; 1 to 64 characters).');
