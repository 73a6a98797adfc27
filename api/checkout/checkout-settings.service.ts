/**
 * Checkout settings of a store (docs/checkout.md): which payment providers the storefront offers and
 * the default one, the 3-D Secure policy, installments, guest checkout, the phone requirement and the
 * terms. A store without saved settings answers the defaults (CHECKOUT_DEFAULTS, `configured: false`), which
 * the storefront checkout applies too.
 *
 * PUT replaces the whole settings (fields left out take their defaults); a PUT that changes nothing
 * writes nothing. A change is audited (checkout_settings.update) in its transaction. The storefront
 * reads the settings when it checks out, it keeps no copy, so no outbox row is written.
 */
import { CheckoutSettings } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { requireStore } from '../../domain/store-access';
import { formatUnits, toUnits } from '../../domain/money';
import { ValidationError, type FieldError } from '../../lib/errors';
import type { InputOf } from '../http/typed-schema';
import type { PaymentProviderName } from '../payments/providers/port';
import { CHECKOUT_DEFAULTS } from './checkout-settings.defaults';
import type { UpsertMerchantCheckoutSettingsDto } from './checkout.schemas';

export type UpsertCheckoutSettingsInput = InputOf<typeof UpsertMerchantCheckoutSettingsDto>;

export interface CheckoutSettingsView {
  storeId: string;
  configured: boolean;
  enabledProviders: PaymentProviderName[];
  defaultProvider: PaymentProviderName | null;
  threeDsPolicy: CheckoutSettings['threeDsPolicy'];
  installments: { enabled: boolean; maxCount: number; minAmount: number };
  guestCheckout: boolean;
  requirePhone: boolean;
  termsUrl: string | null;
  termsText: string | null;
  readyToSell: boolean;
  updatedAt: string | null;
}

const amountText = (value: number | string): string => formatUnits(toUnits(value), 4);

function view(storeId: string, row: CheckoutSettings | null): CheckoutSettingsView {
  if (!row) {
    const d = CHECKOUT_DEFAULTS;
    return {
      storeId,
      configured: false,
      enabledProviders: [...d.enabledProviders],
      defaultProvider: d.defaultProvider,
      threeDsPolicy: d.threeDsPolicy,
      installments: { ...d.installments },
      guestCheckout: d.guestCheckout,
      requirePhone: d.requirePhone,
      termsUrl: d.termsUrl,
      termsText: d.termsText,
      readyToSell: d.enabledProviders.length > 0,
      updatedAt: null,
    };
  }
  const enabled = row.enabledProviders as PaymentProviderName[];
  return {
    storeId,
    configured: true,
    enabledProviders: enabled,
    defaultProvider: (row.defaultProvider as PaymentProviderName | null) ?? null,
    threeDsPolicy: row.threeDsPolicy,
    installments: {
      enabled: row.installmentsEnabled,
      maxCount: row.installmentsMaxCount,
      minAmount: Number(amountText(row.installmentsMinAmount)),
    },
    guestCheckout: row.guestCheckout,
    requirePhone: row.requirePhone,
    termsUrl: row.termsUrl,
    termsText: row.termsText,
    readyToSell: enabled.length > 0,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The settings of a store of the caller's tenant (for other areas: checkout, the onboarding status). */
export async function checkoutSettingsOf(ctx: RequestContext, storeId: string): Promise<CheckoutSettingsView> {
  return view(storeId, await tenantRepository(ctx, CheckoutSettings).findOneBy({ storeId }));
}

export async function getCheckoutSettings(ctx: RequestContext, storeId: string): Promise<CheckoutSettingsView> {
  const store = await requireStore(ctx, storeId);
  return checkoutSettingsOf(ctx, store.id);
}

/** The rules between fields. */
function check(input: UpsertCheckoutSettingsInput): FieldError[] {
  const errors: FieldError[] = [];
  if (input.defaultProvider && !input.enabledProviders.includes(input.defaultProvider))
    errors.push({ path: 'body.defaultProvider', message: 'defaultProvider must be one of enabledProviders' });
  if (input.installments.enabled && input.installments.maxCount < 2)
    errors.push({ path: 'body.installments.maxCount', message: 'installments.maxCount must be at least 2 when installments are enabled' });
  return errors;
}

type Stored = Omit<CheckoutSettings, 'storeId' | 'tenantId' | 'createdAt' | 'updatedAt'>;

function stored(input: UpsertCheckoutSettingsInput): Stored {
  return {
    enabledProviders: [...input.enabledProviders],
    defaultProvider: input.defaultProvider ?? input.enabledProviders[0] ?? null,
    threeDsPolicy: input.threeDsPolicy,
    installmentsEnabled: input.installments.enabled,
    installmentsMaxCount: input.installments.maxCount,
    installmentsMinAmount: amountText(input.installments.minAmount),
    guestCheckout: input.guestCheckout,
    requirePhone: input.requirePhone,
    termsUrl: input.termsUrl ?? null,
    termsText: input.termsText ?? null,
  };
}

const comparable = (s: Stored): string => JSON.stringify({ ...s, installmentsMinAmount: amountText(s.installmentsMinAmount) });

export async function upsertCheckoutSettings(ctx: RequestContext, input: UpsertCheckoutSettingsInput): Promise<CheckoutSettingsView> {
  const errors = check(input);
  if (errors.length) throw new ValidationError('The checkout settings are not consistent.', errors);
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    const repo = tenantRepository(tx, CheckoutSettings);
    const existing = await repo.findOneBy({ storeId: store.id });
    const fields = stored(input);
    if (existing) {
      const { storeId: _s, tenantId: _t, createdAt: _c, updatedAt: _u, ...before } = existing;
      if (comparable(before) === comparable(fields)) return view(store.id, existing);
    }
    const now = new Date();
    const row = repo.create({ ...fields, storeId: store.id, createdAt: existing?.createdAt ?? now, updatedAt: now });
    if (existing) await repo.update({ storeId: store.id }, { ...fields, updatedAt: now });
    else await tx.manager.insert(CheckoutSettings, row);
    await recordAudit(tx, {
      action: existing ? 'checkout_settings.update' : 'checkout_settings.create',
      resourceType: 'checkout_settings',
      resourceId: store.id,
      before: existing ? { ...existing, tenantId: undefined } : null,
      after: fields,
    });
    return view(store.id, row);
  });
}
