/**
 * The checkout settings a store has before it saves any (docs/checkout.md, "Defaults"): every payment
 * provider offered (the first one the default), 3-D Secure RISK_BASED, single payments only, guest
 * checkout on, no phone required, no terms. The storefront checkout reads the same defaults when the
 * store has no row (api/storefront-checkout).
 */
import { PAYMENT_PROVIDERS, type PaymentProviderName } from '../payments/providers/port';
import type { ThreeDsPolicy } from '../../storage/entities/checkout-settings.entity';

export const CHECKOUT_DEFAULTS = {
  enabledProviders: [...PAYMENT_PROVIDERS] as PaymentProviderName[],
  defaultProvider: PAYMENT_PROVIDERS[0] as PaymentProviderName,
  threeDsPolicy: 'RISK_BASED' as ThreeDsPolicy,
  installments: { enabled: false, maxCount: 1, minAmount: 0 },
  guestCheckout: true,
  requirePhone: false,
  termsUrl: null as string | null,
  termsText: null as string | null,
};
