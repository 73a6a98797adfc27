/**
 * The error codes of the billing area: each code once, with its HTTP status and what it means. Throw
 * sites use `billingError(code, detail, errors)`; the API reference lists the codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const BILLING_ERRORS = defineErrorCodes('billing', {
  plan_not_found: { status: 404, description: 'The plan does not exist or is not on offer.' },
  plan_purchase_not_found: { status: 404, description: "The plan purchase does not exist (or is another tenant's)." },
  invoice_not_found: { status: 404, description: "The subscription invoice does not exist (or is another tenant's)." },
  dunning_case_not_found: { status: 404, description: 'The dunning case does not exist.' },
  tenant_not_found: { status: 404, description: 'The tenant named in the body does not exist.' },
  three_ds_page_not_found: {
    status: 404,
    description: 'The 3-D Secure page is unknown or its payment is no longer waiting for a challenge.',
  },
  already_subscribed: { status: 409, description: 'The tenant is already subscribed to this plan for the current period.' },
  subscription_not_cancellable: {
    status: 409,
    description: 'The tenant has no paid subscription to cancel, or it is already cancelled (docs/billing.md, "Subscription").',
  },
  plan_not_paid: { status: 409, description: 'The free plan is not bought: subscribe to it with POST /billing/subscription.' },
  plan_purchase_transition_refused: {
    status: 409,
    description: 'The plan purchase cannot make this change in its current state (docs/billing.md, "Plan purchases").',
  },
  invoice_transition_refused: {
    status: 409,
    description:
      'The subscription invoice cannot move from its state to the state asked for, or be changed or deleted in it (docs/billing.md, "Invoices").',
  },
  dunning_transition_refused: {
    status: 409,
    description: 'The dunning case cannot move from its step to the step asked for, or be deleted in it (docs/billing.md, "Dunning").',
  },
  dunning_invoice_not_unpaid: { status: 409, description: 'A dunning case needs an OPEN or FAILED invoice.' },
  dunning_case_exists: { status: 409, description: 'The invoice already has an open dunning case.' },
  no_payment_method: {
    status: 409,
    description: 'The tenant has no saved card to collect the invoice with (pay a plan purchase with saveCard first).',
  },
  plan_limit_reached: {
    status: 403,
    description: 'The tenant\'s plan does not allow more of this resource; the detail names the limit (docs/billing.md, "Limits").',
  },
  tenant_suspended: {
    status: 403,
    description:
      'The tenant is suspended for an unpaid invoice: its write operations are refused until the invoice is paid (docs/billing.md, "Suspension").',
  },
  payment_provider_unknown: { status: 404, description: 'The payment provider of the path is not one of iyzico, stripe, adyen.' },
});

export const billingError = BILLING_ERRORS.error;
