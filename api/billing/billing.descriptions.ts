/** The OpenAPI descriptions of the billing rows (docs/billing.md has the longer story). */
export const writes = 'Audited.';

export const LIST_PLANS =
  'The plans on offer, cheapest first: monthly price before VAT (20% VAT is added to a purchase), limits (null: none) and features. A tenant without a subscription is on FREE.';
export const GET_SUBSCRIPTION =
  "The tenant's plan in force, its period, whether it is cancelled at the period end, a paid plan waiting for its purchase (pendingPlanCode, pendingPurchase) and whether a dunning case suspended the tenant. A tenant that never subscribed answers the FREE plan.";
export const SUBSCRIBE = `Chooses a plan. FREE takes effect at once (a paid subscription ends now). A paid plan is not in force until paid: the answer carries pendingPurchase, a PENDING plan purchase of one month (price + 20% VAT) to pay with POST /billing/plan-purchases/{id}/pay. The plan already in force answers 409 already_subscribed (renew with /billing/subscription/checkout); an unknown plan 404 plan_not_found. ${writes}`;
export const CHECKOUT = `A PENDING plan purchase of one month of a paid plan (the open PENDING one of that plan when there is one): the plan in force renews (its period is extended once paid), another plan replaces it once paid. FREE answers 409 plan_not_paid. ${writes}`;
export const INSTALLMENTS =
  'The installment options of the iyzico provider for the amount: count, each installment and the total (the last installment carries the rounding). Without binNumber only the single payment is offered.';
export const PAY = `Charges the card for the purchase through the provider (iyzico, stripe or adyen; the sandbox test cards work). Captured (or authorized, then captured at once): PAID, the subscription moves to the plan for a month and a PAID invoice is written. A card asking for 3-D Secure: REQUIRES_ACTION with nextAction.url, our page /api/v1/billing/plan-purchases/3ds/{token} to send the buyer to. Declined: FAILED with declineCode (pay again with another card). Only a PENDING or FAILED purchase is paid (409 plan_purchase_transition_refused). saveCard has the provider keep the card as the tenant's payment method for collecting invoices (we keep only its token, brand and last 4 digits). Takes an Idempotency-Key: a retry with the same key and body answers the first result and charges once. ${writes}`;
export const STATUS = "The plan purchase and its payment state; another tenant's purchase answers 404.";
export const CANCEL = `Cancels the paid subscription at the end of its period: the plan stays in force until currentPeriodEnd, then the tenant is on FREE. No paid subscription, or one already cancelled, answers 409 subscription_not_cancellable. ${writes}`;
export const FEATURES =
  "The store's effective features and limits from the tenant's plan, with the current use of each limit (limits are per tenant: stores, products, staff members; API calls this period). stores and products are enforced at creation (403 plan_limit_reached).";
export const MY_INVOICES = "The tenant's subscription invoices, newest first (drafts are not shown).";
export const MY_INVOICE_PDF =
  "Answers application/pdf: the invoice with its number, period, lines, subtotal, VAT and total. A draft or another tenant's invoice answers 404.";
export const USAGE =
  "Use of the plan in the current period (the paid subscription's period, else the calendar month in UTC): products, stores (not archived), orders placed in the period, staff members and API calls (requests with the tenant's API keys), each with its plan limit (null: none).";
export const THREE_DS_PAGE =
  "An HTML page: the plan, the amount and a button to the payment provider's 3-D Secure challenge. An unknown token, or a purchase no longer waiting for its challenge, answers 404.";
export const CALLBACK =
  'The provider posts signed events here. The signature is checked over the raw body (400 provider_callback_invalid otherwise, nothing changes); each event id is handled once (a replay answers changed: false). A purchase waiting for its 3-D Secure challenge is settled (PAID or FAILED); an unknown purchase, or one already settled by the return, is acknowledged with changed: false so the provider stops retrying.';
export const RETURN =
  "Where the buyer's browser lands after the 3-D Secure challenge. The signed query is checked (400 provider_callback_invalid otherwise), the purchase is settled like the callback would (whichever comes first; the other changes nothing), and the answer is an HTML page saying paid or failed with a link to the console.";
export const LIST_DUNNING = 'Dunning cases, newest first, optionally of one tenant or step. platform_admin only.';
export const UPSERT_DUNNING = `Without id: opens a REMINDER case for an OPEN or FAILED invoice (409 dunning_invoice_not_unpaid otherwise, 409 dunning_case_exists when it has an open one) and tells the tenant (notification and e-mail). With id: changes the note. platform_admin only. ${writes}`;
export const ADVANCE_DUNNING = `Moves the case one step (REMINDER → GRACE → SUSPENDED) or to the step named, or to RESOLVED from any open step; the tenant is told at each step. SUSPENDED refuses the tenant's write operations (403 tenant_suspended) until RESOLVED. Other moves answer 409 dunning_transition_refused. platform_admin only. ${writes}`;
export const DELETE_DUNNING = `Deletes a case; a SUSPENDED one answers 409 dunning_transition_refused (resolve it instead). platform_admin only. ${writes}`;
export const LIST_INVOICES =
  'Subscription invoices of every tenant, newest first, optionally of one tenant or status. platform_admin only.';
export const UPSERT_INVOICE = `Without id: a new DRAFT invoice of a tenant; with id: replaces a DRAFT invoice (another state answers 409 invoice_transition_refused). Line amounts, subtotal, VAT (rounded half up to 2 decimals) and total are computed exactly. platform_admin only. ${writes}`;
export const ADVANCE_INVOICE = `Moves the invoice: DRAFT → OPEN (numbered INV-<year>-<6 digits>, gapless per tenant and year; the tenant is notified), OPEN → PAID | FAILED | VOID, FAILED → OPEN | PAID | VOID. FAILED opens a dunning case; PAID resolves it. Other moves answer 409 invoice_transition_refused. platform_admin only. ${writes}`;
export const RETRY_INVOICE = `Collects an OPEN or FAILED invoice again with the tenant's saved card: PAID when captured (its dunning case resolved), else FAILED with lastError and attempts counted. No saved card: 409 no_payment_method; another state: 409 invoice_transition_refused. Takes an Idempotency-Key. platform_admin only. ${writes}`;
export const DELETE_INVOICE = `Deletes a DRAFT invoice; a numbered one answers 409 invoice_transition_refused (void it instead). platform_admin only. ${writes}`;
