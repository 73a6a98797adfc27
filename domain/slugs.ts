/**
 * Slugs for every area: one transliteration (accents dropped, anything else a single hyphen), one
 * "first free of base, base-2, base-3, …" search, and the joi rule of catalog slugs (categories,
 * brands, products, tags), unique per store case-insensitively.
 */
import Joi from 'joi';
import type { EntityTarget } from 'typeorm';
import { isUniqueViolation } from '../storage/db-errors';
import { inTransaction, type RequestContext } from '../storage/request-context';
import { tenantRepository, type TenantOwned } from '../storage/tenancy';

export const CATALOG_SLUG_MAX = 120;
export const CATALOG_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Lowercase letters, digits and single hyphens, 1 to 120 characters. */
export const catalogSlug = (): Joi.StringSchema =>
  Joi.string()
    .max(CATALOG_SLUG_MAX)
    .pattern(CATALOG_SLUG_PATTERN, 'slug')
    .messages({ 'string.pattern.name': '{{#label}} must be lowercase letters, digits and single hyphens, such as summer-shoes' })
    .description('Lowercase letters, digits and single hyphens (1 to 120 characters); unique per store, case-insensitively.');

/** A slug made from any text; `fallback` when nothing usable is left (e.g. a name of only symbols). */
export function slugify(text: string, maxLength: number, fallback: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ı/g, 'i')
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/** The first of `base`, `base-2`, `base-3`, … that `taken` does not hold. */
export function firstFreeSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n += 1) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * The first free slug of a store's `entity` rows among `base`, `base-2`, … (one query for all the
 * candidates). Another request may take it first; the unique index then answers 409.
 */
export async function freeStoreSlug<T extends TenantOwned & { storeId: string; slug: string }>(
  ctx: RequestContext,
  entity: EntityTarget<T>,
  storeId: string,
  base: string,
): Promise<string> {
  // `base` holds only [a-z0-9-], so it needs no escaping inside LIKE.
  const rows: Array<{ slug: string }> = await tenantRepository(ctx, entity)
    .createQueryBuilder('r')
    .select('lower(r.slug)', 'slug')
    .andWhere('r.storeId = :storeId', { storeId })
    .andWhere('(lower(r.slug) = :base OR lower(r.slug) LIKE :pattern)', { base, pattern: `${base}-%` })
    .getRawMany();
  const taken = new Set(rows.map((row) => row.slug));
  return firstFreeSlug(base, (slug) => taken.has(slug));
}

/** Whether a row of the store's `entity` other than `exceptId` has `slug`, case-insensitively. */
export async function storeSlugInUse<T extends TenantOwned & { id: string; storeId: string; slug: string }>(
  ctx: RequestContext,
  entity: EntityTarget<T>,
  storeId: string,
  slug: string,
  exceptId?: string,
): Promise<boolean> {
  const query = tenantRepository(ctx, entity)
    .createQueryBuilder('r')
    .andWhere('r.storeId = :storeId', { storeId })
    .andWhere('lower(r.slug) = lower(:slug)', { slug });
  if (exceptId) query.andWhere('r.id <> :exceptId', { exceptId });
  return query.getExists();
}

/**
 * Runs `work` in one transaction; losing a slug race at the unique index `constraint` (SQLSTATE 23505)
 * throws `slugTaken()`, the same answer as the check made before the write.
 */
export async function inSlugTransaction<T>(
  ctx: RequestContext,
  constraint: string,
  slugTaken: () => Error,
  work: (tx: RequestContext) => Promise<T>,
): Promise<T> {
  try {
    return await inTransaction(ctx, work);
  } catch (error) {
    if (isUniqueViolation(error, constraint)) throw slugTaken();
    throw error;
  }
}
