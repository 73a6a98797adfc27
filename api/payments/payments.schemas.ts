/**
 * DTOs of the payments area, and the path parameters every payment-provider callback and 3-D Secure
 * page shares (plan purchases in billing, app purchases in the app store).
 */
import { pendingDto } from '../http/route';
import { text } from '../http/schema-types';

export const CreatePaymentDto = pendingDto('CreatePaymentDto');
export const RefundPaymentDto = pendingDto('RefundPaymentDto');
export const ConfirmManualRefundDto = pendingDto('ConfirmManualRefundDto');
/** The body a payment provider posts to a callback URL (plan and app purchases). */
export const PspCallbackBodyDto = pendingDto('PspCallbackBodyDto');

/**
 * `{provider}` of the callback paths: the configured payment provider's key, lower-case letters,
 * digits and hyphens, 1 to 40 characters (the specification does not type it).
 */
export const pspProviderParam = text(1, 40)
  .pattern(/^[a-z][a-z0-9-]*$/, 'provider key')
  .required()
  .description('Key of the payment provider (lower-case letters, digits, hyphens; 1 to 40 characters).');

/**
 * `{token}` of the 3-D Secure pages: an opaque URL-safe token the service issued when it started the
 * payment, 16 to 512 characters (the specification does not type it).
 */
export const threeDsTokenParam = text(16, 512)
  .pattern(/^[A-Za-z0-9_-]+$/, 'URL-safe token')
  .required()
  .description('Opaque URL-safe token issued when the 3-D Secure payment was started (16 to 512 characters).');
