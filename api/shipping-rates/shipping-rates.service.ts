/**
 * Shipping rates of a store: list, create, update, delete, CSV export. The quote (quoteShipping) is in
 * shipping-quote.ts.
 *
 * Any member of the tenant and API keys of the store with the shipping-rates scope edit rates; another
 * tenant's store or rate answers 404 (as does, for an API key, a rate of another store). Every change
 * writes, in its transaction, one audit entry (`shipping_rate.create|update|delete`) and one outbox row
 * (queue `index`, aggregate `shipping_rate`, topic `shipping_rate.created|updated|deleted`); a PATCH
 * that changes nothing writes neither.
 */
import { ShippingRate } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { attachment, toCsv, type CsvColumn, type CsvDownload } from '../http/csv';
import { NotFoundError, ValidationError, type FieldError } from '../../lib/errors';
import { formatUnits, toUnits } from '../../domain/money';
import { UUID_PATTERN } from '../http/schema-types';
import { requireStore } from '../../domain/store-access';
import { destinationLevel, placeKey, type DestinationLevel } from './shipping-quote';
import { shippingRatesError } from './shipping-rates.errors';
import type { CreateShippingRateDto, UpdateShippingRateDto } from './shipping-rates.schemas';
import type { InputOf } from '../http/typed-schema';

/**
 * The fields a merchant sets, as the request gives them (amounts as JSON numbers), all of them: a rate
 * to store, a created one with its left-out fields null or an updated one merged over the stored one.
 */
export type ShippingRateInput = Required<UpdateShippingRateInput>;

/** A rate as the API answers: what the merchant set, amounts as JSON numbers, and what follows from it. */
export interface ShippingRateView extends ShippingRateInput {
  id: string;
  storeId: string;
  destination: DestinationLevel;
  currency: string;
  createdAt: string;
  updatedAt: string;
}

const amount = (value: string | null): number | null => (value === null ? null : Number(formatUnits(toUnits(value), 4)));

export function shippingRateView(rate: ShippingRate): ShippingRateView {
  return {
    id: rate.id,
    storeId: rate.storeId,
    name: rate.name,
    city: rate.city,
    district: rate.district,
    destination: destinationLevel(rate),
    minWeightGrams: rate.minWeightGrams,
    maxWeightGrams: rate.maxWeightGrams,
    minOrderValue: amount(rate.minOrderValue),
    maxOrderValue: amount(rate.maxOrderValue),
    price: amount(rate.price)!,
    freeShippingThreshold: amount(rate.freeShippingThreshold),
    currency: rate.currency,
    minDeliveryDays: rate.minDeliveryDays,
    maxDeliveryDays: rate.maxDeliveryDays,
    isActive: rate.isActive,
    createdAt: rate.createdAt.toISOString(),
    updatedAt: rate.updatedAt.toISOString(),
  };
}

type StoredFields = Pick<
  ShippingRate,
  | 'name'
  | 'city'
  | 'district'
  | 'cityKey'
  | 'districtKey'
  | 'minWeightGrams'
  | 'maxWeightGrams'
  | 'minOrderValue'
  | 'maxOrderValue'
  | 'price'
  | 'freeShippingThreshold'
  | 'minDeliveryDays'
  | 'maxDeliveryDays'
  | 'isActive'
>;

const STORED: ReadonlyArray<keyof StoredFields> = [
  'name',
  'city',
  'district',
  'cityKey',
  'districtKey',
  'minWeightGrams',
  'maxWeightGrams',
  'minOrderValue',
  'maxOrderValue',
  'price',
  'freeShippingThreshold',
  'minDeliveryDays',
  'maxDeliveryDays',
  'isActive',
];

/** A validated JSON amount (at most 4 decimals) as canonical decimal text. */
const moneyText = (value: number | null): string | null => (value === null ? null : formatUnits(toUnits(value), 4));
/** Stored numeric text ("12.5000") in the same canonical form, so unchanged amounts compare equal. */
const canonical = (value: string | null): string | null => (value === null ? null : formatUnits(toUnits(value), 4));

function stored(input: ShippingRateInput): StoredFields {
  return {
    name: input.name,
    city: input.city,
    district: input.district,
    cityKey: input.city === null ? null : placeKey(input.city),
    districtKey: input.district === null ? null : placeKey(input.district),
    minWeightGrams: input.minWeightGrams,
    maxWeightGrams: input.maxWeightGrams,
    minOrderValue: moneyText(input.minOrderValue),
    maxOrderValue: moneyText(input.maxOrderValue),
    price: moneyText(input.price)!,
    freeShippingThreshold: moneyText(input.freeShippingThreshold),
    minDeliveryDays: input.minDeliveryDays,
    maxDeliveryDays: input.maxDeliveryDays,
    isActive: input.isActive,
  };
}

function inputOf(rate: ShippingRate): ShippingRateInput {
  const view = shippingRateView(rate);
  return {
    name: view.name,
    city: view.city,
    district: view.district,
    minWeightGrams: view.minWeightGrams,
    maxWeightGrams: view.maxWeightGrams,
    minOrderValue: view.minOrderValue,
    maxOrderValue: view.maxOrderValue,
    price: view.price,
    freeShippingThreshold: view.freeShippingThreshold,
    minDeliveryDays: view.minDeliveryDays,
    maxDeliveryDays: view.maxDeliveryDays,
    isActive: view.isActive,
  };
}

/** The rules between fields, checked on the rate as it will be stored. */
function checkRate(rate: ShippingRateInput): void {
  const errors: FieldError[] = [];
  if (rate.district !== null && rate.city === null) errors.push({ path: 'body.district', message: 'district needs city' });
  if (rate.minWeightGrams !== null && rate.maxWeightGrams !== null && rate.maxWeightGrams <= rate.minWeightGrams) {
    errors.push({ path: 'body.maxWeightGrams', message: 'maxWeightGrams must be greater than minWeightGrams' });
  }
  if (rate.minOrderValue !== null && rate.maxOrderValue !== null && toUnits(rate.maxOrderValue) <= toUnits(rate.minOrderValue)) {
    errors.push({ path: 'body.maxOrderValue', message: 'maxOrderValue must be greater than minOrderValue' });
  }
  if (rate.minDeliveryDays !== null && rate.maxDeliveryDays !== null && rate.maxDeliveryDays < rate.minDeliveryDays) {
    errors.push({ path: 'body.maxDeliveryDays', message: 'maxDeliveryDays must be at least minDeliveryDays' });
  }
  if (errors.length) throw new ValidationError('The shipping rate is not consistent.', errors);
}

const rateNotFound = (): NotFoundError => shippingRatesError('shipping_rate_not_found', 'The shipping rate does not exist.');

const event = (verb: 'created' | 'updated' | 'deleted', id: string): OutboxEvent => ({
  queue: 'index',
  topic: `shipping_rate.${verb}`,
  aggregateType: 'shipping_rate',
  aggregateId: id,
});

/** What the audit log keeps of a rate (no keys, which derive from the names). */
function auditFields(fields: Partial<StoredFields>): Record<string, unknown> {
  const { cityKey: _c, districtKey: _d, ...rest } = fields;
  return rest;
}

export interface ListShippingRatesQuery {
  storeId: string;
  cursor?: string;
  limit: number;
}

export async function listShippingRates(
  ctx: RequestContext,
  query: ListShippingRatesQuery,
): Promise<{ items: ShippingRateView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  if (query.cursor !== undefined && !UUID_PATTERN.test(query.cursor))
    throw shippingRatesError('invalid_cursor', 'The cursor is not valid.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);
  const qb = tenantRepository(ctx, ShippingRate).createQueryBuilder('r').andWhere('r.storeId = :storeId', { storeId: store.id });
  if (query.cursor !== undefined) qb.andWhere('r.id > :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('r.id', 'ASC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: page.map(shippingRateView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

export type CreateShippingRateInput = InputOf<typeof CreateShippingRateDto>;

export async function createShippingRate(ctx: RequestContext, body: CreateShippingRateInput): Promise<ShippingRateView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, body.storeId, { forWrite: true });
    const input: ShippingRateInput = {
      name: body.name,
      city: body.city ?? null,
      district: body.district ?? null,
      minWeightGrams: body.minWeightGrams ?? null,
      maxWeightGrams: body.maxWeightGrams ?? null,
      minOrderValue: body.minOrderValue ?? null,
      maxOrderValue: body.maxOrderValue ?? null,
      price: body.price,
      freeShippingThreshold: body.freeShippingThreshold ?? null,
      minDeliveryDays: body.minDeliveryDays ?? null,
      maxDeliveryDays: body.maxDeliveryDays ?? null,
      isActive: body.isActive,
    };
    checkRate(input);
    const now = new Date();
    const fields = stored(input);
    const rate = tenantRepository(tx, ShippingRate).create({
      id: uuidv7(),
      storeId: store.id,
      currency: store.currency,
      ...fields,
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(ShippingRate, rate);
    await recordAudit(tx, {
      action: 'shipping_rate.create',
      resourceType: 'shipping_rate',
      resourceId: rate.id,
      after: { storeId: store.id, currency: store.currency, ...auditFields(fields) },
    });
    await enqueueOutbox(tx, event('created', rate.id));
    return shippingRateView(rate);
  });
}

/** The rate `id` of the caller's tenant, locked, whose store the caller may write; 404 otherwise. */
async function loadForWrite(tx: RequestContext, id: string): Promise<ShippingRate> {
  const rate = await tenantRepository(tx, ShippingRate, rateNotFound).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!rate) throw rateNotFound();
  if (tx.actor.type === 'api_key' && tx.actor.storeId !== rate.storeId) throw rateNotFound();
  await requireStore(tx, rate.storeId, { forWrite: true });
  return rate;
}

export type UpdateShippingRateInput = InputOf<typeof UpdateShippingRateDto>;

export async function updateShippingRate(ctx: RequestContext, id: string, body: UpdateShippingRateInput): Promise<ShippingRateView> {
  return inTransaction(ctx, async (tx) => {
    const rate = await loadForWrite(tx, id);
    const current = inputOf(rate);
    const next: ShippingRateInput = { ...current };
    for (const key of Object.keys(body) as Array<keyof ShippingRateInput>) {
      if (body[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = body[key];
    }
    checkRate(next);
    const fields = stored(next);
    const before: Partial<Record<keyof StoredFields, unknown>> = {};
    const after: Partial<Record<keyof StoredFields, unknown>> = {};
    for (const key of STORED) {
      const old =
        key === 'minOrderValue' || key === 'maxOrderValue' || key === 'price' || key === 'freeShippingThreshold'
          ? canonical(rate[key])
          : rate[key];
      if (old === fields[key]) continue;
      before[key] = old;
      after[key] = fields[key];
    }
    if (Object.keys(after).length === 0) return shippingRateView(rate);
    const updatedAt = new Date();
    await tenantRepository(tx, ShippingRate).update({ id: rate.id }, { ...after, updatedAt } as Partial<ShippingRate>);
    await recordAudit(tx, {
      action: 'shipping_rate.update',
      resourceType: 'shipping_rate',
      resourceId: rate.id,
      before: auditFields(before as Partial<StoredFields>),
      after: auditFields(after as Partial<StoredFields>),
    });
    await enqueueOutbox(tx, event('updated', rate.id));
    return shippingRateView({ ...rate, ...fields, updatedAt });
  });
}

export async function deleteShippingRate(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const rate = await loadForWrite(tx, id);
    await tenantRepository(tx, ShippingRate).delete({ id: rate.id });
    await recordAudit(tx, {
      action: 'shipping_rate.delete',
      resourceType: 'shipping_rate',
      resourceId: rate.id,
      before: { storeId: rate.storeId, currency: rate.currency, ...inputOf(rate) },
    });
    await enqueueOutbox(tx, event('deleted', rate.id));
  });
}

const CSV_COLUMNS: CsvColumn<ShippingRateView>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'name', value: (r) => r.name },
  { header: 'destination', value: (r) => r.destination },
  { header: 'city', value: (r) => r.city },
  { header: 'district', value: (r) => r.district },
  { header: 'minWeightGrams', value: (r) => r.minWeightGrams },
  { header: 'maxWeightGrams', value: (r) => r.maxWeightGrams },
  { header: 'minOrderValue', value: (r) => r.minOrderValue },
  { header: 'maxOrderValue', value: (r) => r.maxOrderValue },
  { header: 'price', value: (r) => r.price },
  { header: 'freeShippingThreshold', value: (r) => r.freeShippingThreshold },
  { header: 'currency', value: (r) => r.currency },
  { header: 'minDeliveryDays', value: (r) => r.minDeliveryDays },
  { header: 'maxDeliveryDays', value: (r) => r.maxDeliveryDays },
  { header: 'isActive', value: (r) => r.isActive },
];

export async function exportShippingRates(ctx: RequestContext, query: { storeId: string }): Promise<CsvDownload> {
  const store = await requireStore(ctx, query.storeId);
  const rates = await tenantRepository(ctx, ShippingRate)
    .createQueryBuilder('r')
    .andWhere('r.storeId = :storeId', { storeId: store.id })
    .orderBy('r.id', 'ASC')
    .getMany();
  return { body: toCsv(rates.map(shippingRateView), CSV_COLUMNS), disposition: attachment(`shipping-rates-${store.id}.csv`) };
}
