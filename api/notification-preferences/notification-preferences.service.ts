/**
 * Notification preferences (docs/messaging.md, "Preferences, policies and the digest"): a customer's
 * choice per category, the tenant's policy per category and the tenant's digest. The pipeline
 * (storage/customer-messages.ts) reads them; every write is audited in its transaction.
 */
import { recordAudit } from '../../storage/audit';
import { MESSAGE_CATEGORIES, type MessageCategory } from '../../storage/customer-messages';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { preferencesError } from './notification-preferences.errors';
import type { DigestInput, PolicyInput } from './notification-preferences.schemas';

const iso = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

/** `order-updates`, `Marketing` → the category; 404 for anything else. */
export function categoryOf(key: string): MessageCategory {
  const normal = key.trim().toUpperCase().replace(/[-.]/g, '_');
  const found = MESSAGE_CATEGORIES.find((c) => c === normal);
  if (!found) throw preferencesError('notification_category_unknown', `No notification category ${key}.`);
  return found;
}

const refuseTransactionalOff = (category: MessageCategory, enabled: boolean) => {
  if (category === 'TRANSACTIONAL' && !enabled)
    throw preferencesError('transactional_required', 'TRANSACTIONAL messages cannot be turned off.');
};

function requireTenant(ctx: RequestContext): string {
  if (!ctx.tenantId) throw preferencesError('customer_not_found', 'The customer does not exist.');
  return ctx.tenantId;
}

async function findCustomer(ctx: RequestContext, customerId: string): Promise<{ id: string; store_id: string; tenant_id: string }> {
  const tenantId = requireTenant(ctx);
  const rows: Array<{ id: string; store_id: string; tenant_id: string }> = await ctx.manager.query(
    'SELECT id, store_id, tenant_id FROM customers WHERE id = $1 AND tenant_id = $2',
    [customerId.toLowerCase(), tenantId],
  );
  const customer = rows[0];
  // A store API key sees only its store's customers.
  if (!customer || (ctx.actor.type === 'api_key' && ctx.actor.storeId !== customer.store_id))
    throw preferencesError('customer_not_found', 'The customer does not exist.');
  return customer;
}

async function policyMap(ctx: RequestContext, tenantId: string): Promise<Map<string, { enabled: boolean; updated_at: Date }>> {
  const rows: Array<{ category: string; enabled: boolean; updated_at: Date }> = await ctx.manager.query(
    'SELECT category, enabled, updated_at FROM tenant_notification_policies WHERE tenant_id = $1',
    [tenantId],
  );
  return new Map(rows.map((r) => [r.category, r]));
}

// ---- a customer's preferences --------------------------------------------------------------------

export async function getCustomerPreferences(ctx: RequestContext, customerId: string) {
  const customer = await findCustomer(ctx, customerId);
  const rows: Array<{ category: string; enabled: boolean }> = await ctx.manager.query(
    'SELECT category, enabled FROM customer_notification_preferences WHERE customer_id = $1',
    [customer.id],
  );
  const chosen = new Map(rows.map((r) => [r.category, r.enabled]));
  const policies = await policyMap(ctx, customer.tenant_id);
  return {
    customerId: customer.id,
    storeId: customer.store_id,
    preferences: MESSAGE_CATEGORIES.map((category) => {
      const locked = category === 'TRANSACTIONAL';
      const enabled = locked ? true : (chosen.get(category) ?? true);
      const tenantPolicyEnabled = locked ? true : (policies.get(category)?.enabled ?? true);
      return { category, enabled, explicit: chosen.has(category), locked, tenantPolicyEnabled, effective: enabled && tenantPolicyEnabled };
    }),
  };
}

export async function updateCustomerPreference(ctx: RequestContext, customerId: string, key: string, enabled: boolean) {
  const category = categoryOf(key);
  refuseTransactionalOff(category, enabled);
  await inTransaction(ctx, async (tx) => {
    const customer = await findCustomer(tx, customerId);
    const before: Array<{ enabled: boolean }> = await tx.manager.query(
      'SELECT enabled FROM customer_notification_preferences WHERE customer_id = $1 AND category = $2',
      [customer.id, category],
    );
    await tx.manager.query(
      `INSERT INTO customer_notification_preferences (tenant_id, customer_id, category, enabled)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (customer_id, category) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
      [customer.tenant_id, customer.id, category, enabled],
    );
    await recordAudit(tx, {
      action: 'notification_preference.update',
      resourceType: 'customer',
      resourceId: customer.id,
      before: before[0] ? { category, enabled: before[0].enabled } : null,
      after: { category, enabled },
    });
  });
  return getCustomerPreferences(ctx, customerId);
}

// ---- the tenant's policies -----------------------------------------------------------------------

export async function listPolicies(ctx: RequestContext) {
  const tenantId = requireTenant(ctx);
  const policies = await policyMap(ctx, tenantId);
  return {
    items: MESSAGE_CATEGORIES.map((category) => {
      const row = policies.get(category);
      return { category, enabled: row?.enabled ?? true, updatedAt: iso(row?.updated_at) };
    }),
  };
}

async function upsertPolicyRow(tx: RequestContext, tenantId: string, input: PolicyInput): Promise<void> {
  refuseTransactionalOff(input.category, input.enabled);
  const before: Array<{ enabled: boolean }> = await tx.manager.query(
    'SELECT enabled FROM tenant_notification_policies WHERE tenant_id = $1 AND category = $2',
    [tenantId, input.category],
  );
  await tx.manager.query(
    `INSERT INTO tenant_notification_policies (tenant_id, category, enabled) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id, category) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
    [tenantId, input.category, input.enabled],
  );
  await recordAudit(tx, {
    action: 'notification_policy.upsert',
    resourceType: 'tenant_notification_policy',
    resourceId: null,
    before: before[0] ? { category: input.category, enabled: before[0].enabled } : null,
    after: { category: input.category, enabled: input.enabled },
  });
}

export async function upsertPolicy(ctx: RequestContext, input: PolicyInput) {
  const tenantId = requireTenant(ctx);
  await inTransaction(ctx, (tx) => upsertPolicyRow(tx, tenantId, input));
  return (await listPolicies(ctx)).items.find((p) => p.category === input.category)!;
}

/** All or none: a TRANSACTIONAL=false entry refuses the whole batch. */
export async function upsertPolicies(ctx: RequestContext, input: { policies: PolicyInput[] }) {
  const tenantId = requireTenant(ctx);
  for (const p of input.policies) refuseTransactionalOff(p.category, p.enabled);
  await inTransaction(ctx, async (tx) => {
    for (const p of input.policies) await upsertPolicyRow(tx, tenantId, p);
  });
  return listPolicies(ctx);
}

// ---- the tenant's digest -------------------------------------------------------------------------

export const DEFAULT_DIGEST = { frequency: 'OFF', hour: 8, timeZone: 'UTC' } as const;

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export async function getDigest(ctx: RequestContext) {
  const tenantId = requireTenant(ctx);
  const rows: Array<{
    frequency: DigestInput['frequency'];
    hour: number;
    time_zone: string;
    last_period: string | null;
    updated_at: Date;
  }> = await ctx.manager.query(
    'SELECT frequency, hour, time_zone, last_period, updated_at FROM tenant_notification_digests WHERE tenant_id = $1',
    [tenantId],
  );
  const row = rows[0];
  if (!row) return { ...DEFAULT_DIGEST, lastPeriod: null, updatedAt: null };
  return { frequency: row.frequency, hour: row.hour, timeZone: row.time_zone, lastPeriod: row.last_period, updatedAt: iso(row.updated_at) };
}

export async function upsertDigest(ctx: RequestContext, input: DigestInput) {
  const tenantId = requireTenant(ctx);
  if (!knownTimeZone(input.timeZone)) throw preferencesError('time_zone_unknown', `Unknown time zone ${input.timeZone}.`);
  const timeZone = new Intl.DateTimeFormat('en-US', { timeZone: input.timeZone }).resolvedOptions().timeZone;
  await inTransaction(ctx, async (tx) => {
    const before = await getDigest(tx);
    await tx.manager.query(
      `INSERT INTO tenant_notification_digests (tenant_id, frequency, hour, time_zone) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id) DO UPDATE SET frequency = EXCLUDED.frequency, hour = EXCLUDED.hour, time_zone = EXCLUDED.time_zone, updated_at = now()`,
      [tenantId, input.frequency, input.hour, timeZone],
    );
    await recordAudit(tx, {
      action: 'notification_digest.upsert',
      resourceType: 'tenant_notification_digest',
      resourceId: tenantId,
      before: { frequency: before.frequency, hour: before.hour, timeZone: before.timeZone },
      after: { frequency: input.frequency, hour: input.hour, timeZone },
    });
  });
  return getDigest(ctx);
}
