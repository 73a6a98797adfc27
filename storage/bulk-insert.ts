/**
 * Multi-row inserts for large writes (the product import): every row of the batch travels as one
 * JSON parameter and PostgreSQL turns it into rows with jsonb_to_recordset. TypeORM's own insert
 * builds one placeholder per value (tens of thousands per batch), which costs more CPU than the
 * write itself and a statement the server has to parse again; this costs one parameter per batch.
 *
 * The columns are the entity's (TypeORM metadata): a column no row sets is left to its database
 * default, as TypeORM leaves it; a column some rows set and others leave undefined takes the default
 * in those rows (a nullable column with a default cannot tell an explicit null from "not set", so
 * that case is refused rather than guessed).
 */
import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Rows per statement: keeps one parameter well under PostgreSQL's 1 GB and a statement's time short. */
const ROWS_PER_STATEMENT = 5_000;

export async function bulkInsert<T extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<T>, rows: ReadonlyArray<Partial<T>>): Promise<void> {
  if (!rows.length) return;
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  const used = metadata.columns.filter((column) => rows.some((row) => column.getEntityValue(row as ObjectLiteral) !== undefined));
  const select: string[] = [];
  const record: string[] = [];
  for (const column of used) {
    const name = quote(column.databaseName);
    // The record only carries values into the INSERT, which casts them to the column's own type (and length).
    const base = driver.normalizeType(column);
    const sqlType = /^(character|char|varchar)/.test(base) ? 'text' : base;
    record.push(`${name} ${sqlType}`);
    const everyRow = rows.every((row) => column.getEntityValue(row as ObjectLiteral) !== undefined);
    if (everyRow || column.default === undefined) {
      select.push(`r.${name}`);
      continue;
    }
    if (column.isNullable) throw new Error(`bulkInsert: ${metadata.tableName}.${column.databaseName} is nullable with a default and only some rows set it`);
    select.push(`COALESCE(r.${name}, ${driver.normalizeDefault(column)})`);
  }
  const sql = `INSERT INTO ${quote(metadata.tableName)} (${used.map((c) => quote(c.databaseName)).join(', ')})
               SELECT ${select.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${record.join(', ')})`;
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const slice = rows.slice(start, start + ROWS_PER_STATEMENT).map((row) => {
      const out: Record<string, unknown> = {};
      for (const column of used) {
        const value = column.getEntityValue(row as ObjectLiteral);
        // JSON columns go in as the value itself (the driver would stringify it into a JSON string).
        const json = column.type === 'jsonb' || column.type === 'json';
        out[column.databaseName] = value === undefined || value === null ? null : json ? value : driver.preparePersistentValue(value, column);
      }
      return out;
    });
    await manager.query(sql, [JSON.stringify(slice)]);
  }
}
