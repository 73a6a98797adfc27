/**
 * Realistic `data` for every topic, sent by the webhook tester (POST /webhooks/test). The specification shows
 * the fields of order.placed only (orderId, total, currency, customerId); the other topics carry what
 * their emitting operation sends (product events: see product-events.ts) or, for areas not built yet,
 * the identifiers and amounts an integrator needs to act, with the same naming rules: ids are UUIDs,
 * amounts decimal numbers with an ISO 4217 currency, times ISO 8601 UTC.
 */
import { uuidv7 } from '../../storage/ids';
import type { WebhookTopic } from './events';

const iso = (offsetMs = 0): string => new Date(Date.now() + offsetMs).toISOString();
const DAY = 86_400_000;

/** A sample payload of `topic`; fresh ids on every call, so two test events never look alike. */
export function sampleEventData(topic: WebhookTopic): Record<string, unknown> {
  const id = uuidv7;
  const storeId = id();
  switch (topic) {
    case 'order.placed':
      return {
        orderId: id(),
        total: 149.9,
        currency: 'EUR',
        customerId: id(),
        storeId,
        itemCount: 2,
        shippingAddress: { city: 'Istanbul', district: 'Kadikoy' },
      };
    case 'order.cancelled':
      return { orderId: id(), total: 149.9, currency: 'EUR', customerId: id(), storeId, reason: 'customer_request', cancelledAt: iso() };
    case 'payment.captured':
      return { paymentId: id(), orderId: id(), amount: 149.9, currency: 'EUR', provider: 'card', capturedAt: iso() };
    case 'payment.refunded':
      return { refundId: id(), paymentId: id(), orderId: id(), amount: 49.95, currency: 'EUR', reason: 'returned_item', refundedAt: iso() };
    case 'product.created':
    case 'product.updated':
    case 'product.published':
    case 'product.archived': {
      const status = {
        'product.created': 'DRAFT',
        'product.updated': 'DRAFT',
        'product.published': 'PUBLISHED',
        'product.archived': 'ARCHIVED',
      }[topic];
      return {
        id: id(),
        storeId,
        title: 'Merino Wool Crew Sweater',
        slug: 'merino-wool-crew-sweater',
        status,
        price: 89.5,
        currency: 'EUR',
        updatedAt: iso(),
      };
    }
    case 'approval.request.created':
      return {
        approvalId: id(),
        resourceType: 'quote',
        resourceId: id(),
        requestedBy: id(),
        amount: 12500,
        currency: 'EUR',
        expiresAt: iso(7 * DAY),
      };
    case 'approval.approved':
      return { approvalId: id(), resourceType: 'quote', resourceId: id(), approvedBy: id(), decidedAt: iso() };
    case 'approval.rejected':
      return { approvalId: id(), resourceType: 'quote', resourceId: id(), rejectedBy: id(), reason: 'Budget exceeded', decidedAt: iso() };
    case 'approval.expired':
      return { approvalId: id(), resourceType: 'quote', resourceId: id(), expiredAt: iso() };
    case 'quote.sent':
      return { quoteId: id(), customerId: id(), total: 12500, currency: 'EUR', validUntil: iso(14 * DAY) };
    case 'quote.accepted':
      return { quoteId: id(), customerId: id(), total: 12500, currency: 'EUR', acceptedAt: iso() };
    case 'quote.rejected':
      return { quoteId: id(), customerId: id(), reason: 'Found a cheaper offer', rejectedAt: iso() };
    case 'quote.converted':
      return { quoteId: id(), orderId: id(), customerId: id(), total: 12500, currency: 'EUR', convertedAt: iso() };
    case 'quote.expired':
      return { quoteId: id(), customerId: id(), expiredAt: iso() };
    case 'vendor.applied':
      return { vendorId: id(), name: 'Anatolia Textiles', email: 'sales@anatolia-textiles.example', appliedAt: iso() };
    case 'vendor.approved':
      return { vendorId: id(), name: 'Anatolia Textiles', commissionRate: 0.12, approvedAt: iso() };
    case 'vendor.rejected':
      return { vendorId: id(), name: 'Anatolia Textiles', reason: 'Missing tax documents', rejectedAt: iso() };
    case 'vendor.suspended':
      return { vendorId: id(), name: 'Anatolia Textiles', reason: 'Repeated late shipments', suspendedAt: iso() };
    case 'payout.calculated':
      return {
        payoutId: id(),
        vendorId: id(),
        amount: 4321.75,
        currency: 'EUR',
        periodStart: iso(-30 * DAY).slice(0, 10),
        periodEnd: iso(-DAY).slice(0, 10),
      };
    case 'payout.paid':
      return { payoutId: id(), vendorId: id(), amount: 4321.75, currency: 'EUR', paidAt: iso() };
    case 'payout.failed':
      return { payoutId: id(), vendorId: id(), amount: 4321.75, currency: 'EUR', reason: 'Bank account closed', failedAt: iso() };
    case 'payout.retry.scheduled':
      return { payoutId: id(), vendorId: id(), attempt: 2, nextAttemptAt: iso(DAY) };
    case 'payout.retry.given_up':
      return { payoutId: id(), vendorId: id(), attempts: 5, reason: 'Bank account closed', gaveUpAt: iso() };
    case 'buybox.winner_changed':
      return { productId: id(), previousVendorId: id(), vendorId: id(), price: 84.9, currency: 'EUR', changedAt: iso() };
    case 'saved_report.due':
      return { reportId: id(), name: 'Weekly sales by category', schedule: 'WEEKLY', dueAt: iso() };
    case 'impersonation.started':
      return { impersonationId: id(), staffUserId: id(), userId: id(), reason: 'Support ticket', startedAt: iso() };
    case 'impersonation.ended':
      return { impersonationId: id(), staffUserId: id(), userId: id(), endedAt: iso() };
    case 'staff.invited':
      return { invitationId: id(), email: 'new.colleague@example.org', role: 'staff', invitedBy: id(), expiresAt: iso(7 * DAY) };
    case 'staff.accepted':
      return { invitationId: id(), userId: id(), email: 'new.colleague@example.org', role: 'staff', acceptedAt: iso() };
    case 'consent.registry.push_due':
      return { registry: 'IYS', pendingRecords: 128, dueAt: iso(DAY) };
  }
}
