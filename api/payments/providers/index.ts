/**
 * The payment-provider port and how to get a provider (docs/payments.md, "The provider port"):
 * - `paymentProvider(ctx, name)`: the provider by name, bound to `ctx` (use the transaction's
 *   context: the simulator writes its rows with it). A real provider registered with
 *   `registerPaymentProvider` wins; otherwise the built-in simulator answers, which production
 *   refuses (500 payment_simulator_refused) unless PAYMENT_SIMULATOR_ALLOWED=true.
 * - `recordCallbackOnce(tx, provider, eventId)`: true the first time a callback event id is seen,
 *   false for a replay (do nothing then); inside the caller's transaction, so a callback whose
 *   handling rolls back can be delivered again.
 */
import type { RequestContext } from '../../../storage/request-context';
import { servicesOf } from '../../../storage/request-context';
import { paymentsError } from '../payments.errors';
import type { PaymentProvider, PaymentProviderName } from './port';
import { SimulatedProvider } from './simulator';

export * from './port';
export { CHALLENGE_TTL_MINUTES } from './simulator';

/** Builds a real provider's adapter for a request context (its configuration from servicesOf(ctx).config). */
export type PaymentProviderFactory = (ctx: RequestContext) => PaymentProvider;

const registered = new Map<PaymentProviderName, PaymentProviderFactory>();

/** Registers a real provider's adapter for `name` (at start-up, in the composition root); it replaces the simulator for that name. */
export function registerPaymentProvider(name: PaymentProviderName, factory: PaymentProviderFactory): void {
  registered.set(name, factory);
}

export function paymentProvider(ctx: RequestContext, name: PaymentProviderName): PaymentProvider {
  const real = registered.get(name);
  if (real) return real(ctx);
  if (!servicesOf(ctx).config.payments.simulatorAllowed)
    throw paymentsError(
      'payment_simulator_refused',
      `No payment provider is registered for ${name}, and the built-in simulator is refused in production; set PAYMENT_SIMULATOR_ALLOWED=true to use it anyway, or register the real provider (docs/payments.md).`,
    );
  return new SimulatedProvider(name, ctx);
}

export async function recordCallbackOnce(tx: RequestContext, provider: PaymentProviderName, eventId: string): Promise<boolean> {
  const rows = (await tx.manager.query(
    `INSERT INTO provider_callback_events (provider, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
    [provider, eventId],
  )) as unknown[];
  return rows.length === 1;
}
