/**
 * Settings of the import and export operations, read from the environment when used (so tests can
 * lower the thresholds). Documented in docs/configuration.md.
 * - IMPORT_ASYNC_MIN_ROWS (10000): a product CSV with this many data rows or more is refused by the
 *   synchronous operation (413 use_async_import) and must go to /bulk-import/products/async.
 * - IMPORT_BATCH_PRODUCTS (1000): products committed per transaction by an import (also one outbox row and
 *   one indexer batch: fewer, larger Meilisearch writes cost Meilisearch less per product).
 * - CUSTOMER_IMPORT_MAX_ROWS (10000): most data rows of one customer import (413 beyond).
 * - EXPORT_LINK_TTL_SECONDS (86400): how long an export's download link works after it is issued.
 */
function positiveIntEnv(name: string, fallback: number, min = 1, max = 10_000_000): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  return value;
}

export interface ImportSettings {
  asyncMinRows: number;
  batchProducts: number;
  customerMaxRows: number;
  exportLinkTtlSeconds: number;
}

export function importSettings(): ImportSettings {
  return {
    asyncMinRows: positiveIntEnv('IMPORT_ASYNC_MIN_ROWS', 10_000, 2),
    batchProducts: positiveIntEnv('IMPORT_BATCH_PRODUCTS', 1_000, 1, 10_000),
    customerMaxRows: positiveIntEnv('CUSTOMER_IMPORT_MAX_ROWS', 10_000, 1),
    exportLinkTtlSeconds: positiveIntEnv('EXPORT_LINK_TTL_SECONDS', 86_400, 1, 30 * 86_400),
  };
}
