/** Route descriptions of the app store too long for a table row (docs/app-store.md). */

export const LIST_LISTINGS =
  'Published apps, ordered by id, each with the state of the store: entitlement (NOT_INSTALLED, ENABLED, DISABLED), whether a purchase is needed and the active purchase. Paged with cursor (the id of the last item) and limit; category filters exactly (an empty value: no filter).';

export const ENABLE =
  'A free app is enabled at once. A paid app needs a PAID purchase for the store that covers today (ONE_TIME: for good; MONTHLY: 30 days from payment), else 409 app_purchase_required. Enabling an enabled app changes nothing. Audited (app_entitlement.enable) and announced to the members (in-app notification).';

export const DISABLE =
  'Turns the app off for the store; a purchase is kept, so enabling again needs no new payment while it covers. Disabling an app that is not enabled changes nothing. Audited (app_entitlement.disable) and announced.';

export const PURCHASE =
  "Starts the purchase of a paid app: a purchase PENDING with its amount and currency (the listing's price). A free app answers 409 app_is_free; an app the store already paid for (and still covers) 409 app_already_purchased. Pay it with POST /app-store/purchases/{id}/pay.";

export const PAY =
  'Charges the card through the payment provider (authorized and captured at once). PENDING or FAILED purchases only (else 409 app_purchase_state_refused). The answer is the purchase: PAID (the app is enabled for the store), FAILED (declined: declineCode, failureMessage), or CHALLENGE_REQUIRED with nextAction.url, our 3-D Secure page to send the buyer to. An Idempotency-Key makes retries safe: the same key and body give back the first answer, another body 409 idempotency_key_reused.';

export const CALLBACK =
  'Signed asynchronous notice of the payment provider (payment.authorized, payment.captured, payment.declined, payment.refunded). The signature is checked over the raw body (400 provider_callback_invalid; nothing changes); each event id is applied once (a replay answers applied false). An unknown purchase, or a change the purchase state does not take, answers 201 with applied false so the provider does not retry.';

export const RETURN =
  "Where the buyer's browser comes back after the 3-D Secure challenge, with the provider's signed query parameters. The outcome is applied like the callback (whichever comes first), then a small page says whether the payment went through. A bad signature answers 400 provider_callback_invalid.";

export const THREE_DS_PAGE =
  "Our page of a purchase waiting for its 3-D Secure challenge: the purchase, its amount, and a link on to the provider's challenge page. 404 three_ds_page_not_found once the purchase no longer waits (paid, failed) or the challenge expired.";
