/** Webhook topics (document 1, "Topic catalog": 33 topics in 10 categories) and DTOs. */
import Joi from 'joi';
import { dto } from '../http/route';
import { httpUrl, oneOf } from '../http/schema-types';

export const WEBHOOK_TOPICS = [
  'order.placed', 'order.cancelled',
  'payment.captured', 'payment.refunded',
  'product.created', 'product.updated', 'product.published', 'product.archived',
  'approval.request.created', 'approval.approved', 'approval.rejected', 'approval.expired',
  'quote.sent', 'quote.accepted', 'quote.rejected', 'quote.converted', 'quote.expired',
  'vendor.applied', 'vendor.approved', 'vendor.rejected', 'vendor.suspended',
  'payout.calculated', 'payout.paid', 'payout.failed', 'payout.retry.scheduled', 'payout.retry.given_up',
  'buybox.winner_changed',
  'saved_report.due',
  'impersonation.started', 'impersonation.ended', 'staff.invited', 'staff.accepted', 'consent.registry.push_due',
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export const WebhookTestDto = dto(
  'WebhookTestDto',
  Joi.object({
    topic: oneOf(WEBHOOK_TOPICS).required(),
    endpoint: httpUrl().required().description('The receiver URL (http or https).'),
  }),
);
