/**
 * Customers of a store, and their CSV import (docs/commerce.md, "Customers"). Customers belong to a
 * store (as orders do); the e-mail is unique per store, case-insensitively, and is the key the import
 * upserts by.
 *
 * Import: one row per customer, columns CUSTOMER_COLUMNS. Rows are checked one by one; a bad row is
 * reported (row number, column, message) and skipped, the good ones are written in batches of 500,
 * each batch one transaction. A column missing from the header keeps the stored value of existing
 * customers; a column present with an empty cell clears it (name, phone, tags) or sets it false
 * (acceptsMarketing). Each created or changed customer writes one audit entry (customer.create or
 * customer.update); an unchanged one writes nothing. Customers are not searchable, so no outbox row.
 */
import Joi from 'joi';
import { Customer, type Store } from '../../storage/entities';
import type { CustomerAddress } from '../../storage/entities/customer.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { PayloadTooLargeError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { booleanCell, csvRecords, listCell, type CsvSource, type RowError } from '../imports/csv-stream';
import { importSettings } from '../imports/imports.settings';

export const CUSTOMER_COLUMNS = [
  'email',
  'name',
  'phone',
  'tags',
  'acceptsMarketing',
  'marketingConsentAt',
  'addressLine1',
  'addressLine2',
  'city',
  'district',
  'region',
  'postalCode',
  'country',
] as const;
const ADDRESS_COLUMNS = {
  addressLine1: 'line1',
  addressLine2: 'line2',
  city: 'city',
  district: 'district',
  region: 'region',
  postalCode: 'postalCode',
  country: 'country',
} as const;
const BATCH = 500;
export const MAX_REPORTED_ROW_ERRORS = 1_000;

const cellSchemas: Record<(typeof CUSTOMER_COLUMNS)[number], Joi.Schema> = {
  email: Joi.string().trim().email({ tlds: false }).max(254).required(),
  name: Joi.string().trim().min(1).max(200),
  phone: Joi.string()
    .trim()
    .pattern(/^\+?[0-9][0-9 ()-]{3,30}$/)
    .message('must be a phone number (digits, spaces, parentheses, hyphens, an optional leading +)')
    .max(32),
  tags: Joi.string(),
  acceptsMarketing: Joi.string(),
  marketingConsentAt: Joi.date().iso(),
  addressLine1: Joi.string().trim().max(200),
  addressLine2: Joi.string().trim().max(200),
  city: Joi.string().trim().max(100),
  district: Joi.string().trim().max(100),
  region: Joi.string().trim().max(100),
  postalCode: Joi.string().trim().max(20),
  country: Joi.string()
    .trim()
    .uppercase()
    .pattern(/^[A-Z]{2}$/)
    .message('must be an ISO 3166-1 alpha-2 country code'),
};

export interface CustomerImportResult {
  rows: { read: number; failed: number };
  customers: { created: number; updated: number; unchanged: number; failed: number };
  errors: RowError[];
  errorsTruncated: boolean;
}

interface CustomerRow {
  row: number;
  email: string;
  fields: Partial<Pick<Customer, 'name' | 'phone' | 'tags' | 'acceptsMarketing' | 'marketingConsentAt'>>;
  address?: CustomerAddress;
}

export function customerView(c: Customer): Record<string, unknown> {
  return {
    id: c.id,
    storeId: c.storeId,
    name: c.name,
    email: c.email,
    phone: c.phone,
    addresses: c.addresses,
    tags: c.tags,
    acceptsMarketing: c.acceptsMarketing,
    marketingConsentAt: c.marketingConsentAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** Checks one CSV row; returns the customer row or its errors. */
function readCustomerRow(row: number, cells: Record<string, string>, header: readonly string[]): CustomerRow | RowError[] {
  const errors: RowError[] = [];
  const value: Record<string, unknown> = {};
  for (const column of CUSTOMER_COLUMNS) {
    const cell = cells[column];
    const { value: v, error } = cellSchemas[column].validate(cell, { convert: true, errors: { wrap: { label: false } } });
    if (error) errors.push({ row, column, message: error.details[0]!.message.replace(/^"value" /, '') });
    else value[column] = v;
  }
  const consent = booleanCell(cells.acceptsMarketing);
  if (consent === 'invalid') errors.push({ row, column: 'acceptsMarketing', message: 'must be true or false (also yes/no, 1/0)' });
  const tags = listCell(cells.tags);
  if (tags.length > 50) errors.push({ row, column: 'tags', message: 'at most 50 tags' });
  if (tags.some((t) => t.length > 100)) errors.push({ row, column: 'tags', message: 'a tag has at most 100 characters' });
  if (consent === false && cells.marketingConsentAt !== undefined)
    errors.push({ row, column: 'marketingConsentAt', message: 'must be empty when acceptsMarketing is false' });
  const addressGiven = Object.keys(ADDRESS_COLUMNS).some((c) => cells[c] !== undefined);
  if (addressGiven && cells.addressLine1 === undefined)
    errors.push({ row, column: 'addressLine1', message: 'is required when any address column is filled in' });
  if (errors.length) return errors;

  const has = (column: string): boolean => header.includes(column);
  const fields: CustomerRow['fields'] = {};
  if (has('name')) fields.name = (value.name as string | undefined) ?? null;
  if (has('phone')) fields.phone = (value.phone as string | undefined) ?? null;
  if (has('tags')) fields.tags = [...new Set(tags)];
  if (has('acceptsMarketing')) {
    fields.acceptsMarketing = consent === true;
    if (consent === true && value.marketingConsentAt) fields.marketingConsentAt = value.marketingConsentAt as Date;
  }
  let address: CustomerAddress | undefined;
  if (addressGiven) {
    address = { line1: value.addressLine1 as string };
    for (const [column, key] of Object.entries(ADDRESS_COLUMNS))
      if (key !== 'line1' && value[column] !== undefined) (address as unknown as Record<string, unknown>)[key] = value[column];
  }
  return { row, email: value.email as string, fields, address };
}

const sameAddress = (a: CustomerAddress, b: CustomerAddress): boolean =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

function customerState(
  c: Pick<Customer, 'name' | 'email' | 'phone' | 'addresses' | 'tags' | 'acceptsMarketing' | 'marketingConsentAt'>,
): Record<string, unknown> {
  return {
    name: c.name,
    email: c.email,
    phone: c.phone,
    addresses: c.addresses,
    tags: c.tags,
    acceptsMarketing: c.acceptsMarketing,
    marketingConsentAt: c.marketingConsentAt?.toISOString() ?? null,
  };
}

/** Writes one batch of checked rows in one transaction; returns the counts. */
async function writeCustomerBatch(ctx: RequestContext, storeId: string, rows: CustomerRow[], result: CustomerImportResult): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const store: Store = await requireStore(tx, storeId, { forWrite: true });
    const existing = await tx.manager
      .createQueryBuilder(Customer, 'c')
      .where('c.tenant_id = :tenant AND c.store_id = :store AND c.email_key IN (:...keys)', {
        tenant: tx.tenantId,
        store: store.id,
        keys: rows.map((r) => r.email.toLowerCase()),
      })
      .setLock('pessimistic_write')
      .getMany();
    const byKey = new Map(existing.map((c) => [c.email.toLowerCase(), c]));
    const now = new Date();
    for (const row of rows) {
      const current = byKey.get(row.email.toLowerCase());
      const next: Customer = Object.assign(
        new Customer(),
        current ?? {
          id: uuidv7(),
          tenantId: tx.tenantId!,
          storeId: store.id,
          name: null,
          phone: null,
          addresses: [],
          tags: [],
          acceptsMarketing: false,
          marketingConsentAt: null,
          createdAt: now,
        },
      );
      next.email = row.email;
      Object.assign(next, { ...row.fields, marketingConsentAt: undefined });
      if (row.fields.acceptsMarketing !== undefined) {
        next.marketingConsentAt = row.fields.acceptsMarketing
          ? (row.fields.marketingConsentAt ?? (current?.acceptsMarketing ? current.marketingConsentAt : null) ?? now)
          : null;
      }
      if (row.address) next.addresses = [row.address, ...next.addresses.filter((a) => !sameAddress(a, row.address!))];
      const before = current ? customerState(current) : null;
      const after = customerState(next);
      if (before && JSON.stringify(before) === JSON.stringify(after)) {
        result.customers.unchanged += 1;
        continue;
      }
      next.updatedAt = now;
      const columns = next;
      if (current) {
        await tx.manager.update(
          Customer,
          { id: current.id, tenantId: tx.tenantId },
          {
            name: next.name,
            email: next.email,
            phone: next.phone,
            addresses: next.addresses as never,
            tags: next.tags,
            acceptsMarketing: next.acceptsMarketing,
            marketingConsentAt: next.marketingConsentAt,
            updatedAt: now,
          },
        );
        result.customers.updated += 1;
      } else {
        await tx.manager.insert(Customer, columns as never);
        byKey.set(row.email.toLowerCase(), next);
        result.customers.created += 1;
      }
      await recordAudit(tx, {
        action: current ? 'customer.update' : 'customer.create',
        resourceType: 'customer',
        resourceId: next.id,
        before,
        after,
      });
    }
  });
}

/**
 * Imports customers into `storeId` from a CSV (columns CUSTOMER_COLUMNS; `email` required). Answers
 * the counts and the row errors; 413 when the CSV has more rows than CUSTOMER_IMPORT_MAX_ROWS.
 */
export async function importCustomers(ctx: RequestContext, storeId: string, source: CsvSource): Promise<CustomerImportResult> {
  await requireStore(ctx, storeId, { forWrite: true });
  const { customerMaxRows } = importSettings();
  const result: CustomerImportResult = {
    rows: { read: 0, failed: 0 },
    customers: { created: 0, updated: 0, unchanged: 0, failed: 0 },
    errors: [],
    errorsTruncated: false,
  };
  const addErrors = (errors: RowError[]): void => {
    for (const e of errors) {
      if (result.errors.length < MAX_REPORTED_ROW_ERRORS) result.errors.push(e);
      else result.errorsTruncated = true;
    }
  };
  let header: string[] = [];
  const seen = new Map<string, number>();
  const valid: CustomerRow[] = [];
  for await (const record of csvRecords(source, { known: CUSTOMER_COLUMNS, required: ['email'] }, (names) => (header = names))) {
    result.rows.read += 1;
    if (result.rows.read > customerMaxRows)
      throw new PayloadTooLargeError(customerMaxRows, `A customer import takes at most ${customerMaxRows} rows.`);
    const read = record.errors.length ? record.errors : readCustomerRow(record.row, record.cells, header);
    if (Array.isArray(read)) {
      addErrors(read);
      result.rows.failed += 1;
      result.customers.failed += 1;
      continue;
    }
    const key = read.email.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      addErrors([{ row: record.row, column: 'email', message: `e-mail already appears in row ${first}` }]);
      result.rows.failed += 1;
      result.customers.failed += 1;
      continue;
    }
    seen.set(key, record.row);
    valid.push(read);
  }
  for (let i = 0; i < valid.length; i += BATCH) await writeCustomerBatch(ctx, storeId, valid.slice(i, i + BATCH), result);
  result.errors.sort((a, b) => a.row - b.row);
  return result;
}
