/** Payments: authorize, capture, void and refund. */
import { defineRoutes } from '../http/route';
import { ConfirmManualRefundDto, CreatePaymentDto, RefundPaymentDto } from './payments.schemas';

export const paymentsRoutes = defineRoutes({ tag: 'payments', auth: 'merchant' }, [
  {
    operationId: 'payments.authorize',
    method: 'POST',
    path: '/payments',
    summary: 'Authorize a payment',
    body: CreatePaymentDto,
    status: 201,
  },
  {
    operationId: 'payments.capture',
    method: 'POST',
    path: '/payments/{id}/capture',
    summary: 'Capture an authorized payment',
    status: 201,
  },
  {
    operationId: 'payments.void',
    method: 'POST',
    path: '/payments/{id}/void',
    summary: 'Void an authorized payment that was not captured',
    status: 201,
  },
  {
    operationId: 'payments.refund',
    method: 'POST',
    path: '/payments/{id}/refund',
    summary: 'Refund a captured payment, in full or in part',
    body: RefundPaymentDto,
    status: 201,
  },
  {
    operationId: 'payments.confirmManualRefund',
    method: 'POST',
    path: '/payments/{id}/refund/confirm-manual',
    summary: 'Confirm that a pending manual refund was paid back outside the provider',
    body: ConfirmManualRefundDto,
    status: 201,
  },
  {
    operationId: 'payments.cancelManualRefund',
    method: 'POST',
    path: '/payments/{id}/refund/cancel-manual',
    summary: 'Cancel a pending manual refund',
    status: 201,
  },
]);
