/**
 * Multi-row inserts for large writes (the product import): every row of the batch travels as one
 * JSON parameter and PostgreSQL turns it into rows with jsonb_to_recordset. TypeORM's own insert
 * builds one placeholder per value (tens of thousands per batch), which costs more CPU than the
 * write itself and a statement the server has to parse again; this costs one parameter per batch.
 *
 * The rows are serialised as they are: their property names become the record's field names, and
 * only column types whose JSON form PostgreSQL reads back exactly are accepted (no transformers).
 * The columns are the entity's (TypeORM metadata): a column no row sets is left to its database
 * default, as TypeORM leaves it; a column some rows set and others leave undefined takes the default
 * in those rows (a nullable column with a default cannot tell an explicit null from "not set", so
 * that case is refused rather than guessed).
 */
import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Rows per statement: keeps one parameter well under PostgreSQL's 1 GB and a statement's time short. */
const ROWS_PER_STATEMENT = 5_000;

export async function bulkInsert<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: ReadonlyArray<Partial<T>>,
): Promise<void> {
  if (!rows.length) return;
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  for (const column of metadata.columns) {
    // The rows are serialised as they are (property names as JSON keys); a column that needs the driver's conversion is not for this path.
    if (column.transformer || column.embeddedMetadata || !JSON_SAFE_TYPES.has(String(column.type)))
      throw new Error(`bulkInsert: ${metadata.tableName}.${column.databaseName} (${String(column.type)}) is not supported`);
  }
  const isSet = (row: Partial<T>, property: string): boolean => (row as Record<string, unknown>)[property] !== undefined;
  const used = metadata.columns.filter((column) => rows.some((row) => isSet(row, column.propertyName)));
  const select: string[] = [];
  const record: string[] = [];
  for (const column of used) {
    const key = quote(column.propertyName);
    // The record only carries values into the INSERT, which casts them to the column's own type (and length).
    const base = driver.normalizeType(column);
    record.push(`${key} ${/^(character|char|varchar)/.test(base) ? 'text' : base}`);
    if (column.default === undefined || rows.every((row) => isSet(row, column.propertyName))) {
      select.push(`r.${key}`);
      continue;
    }
    if (column.isNullable)
      throw new Error(`bulkInsert: ${metadata.tableName}.${column.databaseName} is nullable with a default and only some rows set it`);
    select.push(`COALESCE(r.${key}, ${driver.normalizeDefault(column)})`);
  }
  const sql = `INSERT INTO ${quote(metadata.tableName)} (${used.map((c) => quote(c.databaseName)).join(', ')})
               SELECT ${select.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${record.join(', ')})`;
  // Keys the record does not name (none for entities built by the services) are ignored by PostgreSQL.
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT)
    await manager.query(sql, [JSON.stringify(rows.slice(start, start + ROWS_PER_STATEMENT))]);
}

/** Column types whose JSON form (JSON.stringify of the entity's value) PostgreSQL reads back as the same value. */
const JSON_SAFE_TYPES = new Set([
  'uuid',
  'text',
  'varchar',
  'char',
  'numeric',
  'integer',
  'int',
  'bigint',
  'boolean',
  'timestamptz',
  'jsonb',
  'json',
]);
