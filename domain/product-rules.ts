/**
 * The rules a product must satisfy beyond its DTO: sanitised HTML, exact money, free slugs, references
 * to the store's brands, categories and tags, and attribute values checked against the attributes of
 * its categories.
 */
import sanitizeHtml from 'sanitize-html';
import { Brand, CategoryAttribute, Product } from '../storage/entities';
import type { RequestContext } from '../storage/request-context';
import { tenantRepository } from '../storage/tenancy';
import { type FieldError } from '../lib/errors';
import { freeStoreSlug, slugify, storeSlugInUse } from './slugs';
import { toUnits } from './money';
import { domainError } from './domain.errors';

export const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'strong',
    'em',
    'b',
    'i',
    'u',
    's',
    'ul',
    'ol',
    'li',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'code',
    'pre',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'hr',
    'span',
    'div',
    'a',
    'img',
  ],
  allowedAttributes: { a: ['href', 'title', 'target', 'rel'], img: ['src', 'alt', 'title', 'width', 'height'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
};

/** Text without markup or entities, or such text in `<p>` paragraphs separated by white space. */
const PLAIN_PARAGRAPHS = /^(?:[^<>&]*|\s*(?:<p>[^<>&]*<\/p>\s*)+)$/;

/** True for text without markup or entities, or such text in plain `<p>` paragraphs: HTML that is safe as it is. */
export const isPlainParagraphs = (html: string): boolean => PLAIN_PARAGRAPHS.test(html);

/** Merchant HTML made safe for a storefront: see the DTO description for what is kept. */
export function sanitizeDescription(html: string | undefined): string {
  if (!html) return '';
  // Plain text, or plain paragraphs, come out of sanitize-html unchanged; an import of 100,000
  // products spends much of its time there otherwise (test/unit/sanitize-description.test.ts).
  if (isPlainParagraphs(html)) return html;
  return sanitizeHtml(html, SANITIZE);
}

export function sanitizeTranslations(
  input: Record<string, { title?: string; descriptionHtml?: string }> | undefined,
): Record<string, { title?: string; descriptionHtml?: string }> {
  const out: Record<string, { title?: string; descriptionHtml?: string }> = {};
  for (const [locale, value] of Object.entries(input ?? {})) {
    const entry: { title?: string; descriptionHtml?: string } = {};
    if (value.title !== undefined) entry.title = value.title;
    if (value.descriptionHtml !== undefined) entry.descriptionHtml = sanitizeDescription(value.descriptionHtml);
    out[locale] = entry;
  }
  return out;
}

/** A validated JSON amount (at most 4 decimals, see productMoney) as the decimal string stored. */
export function moneyString(value: number): string {
  const text = value.toString();
  if (!/e/i.test(text)) return text;
  return value.toFixed(4);
}

/** Canonical decimal text: "19.9900" and "19.99" read the same. */
export function canonicalMoney(value: string | null): string | null {
  if (value === null) return null;
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

/** A stored decimal (at most 4 decimals) as a scaled integer: exact arithmetic without floats. */
const scaled = (value: string): bigint => toUnits(value);

/** Compares two decimals exactly: negative, zero or positive. */
export function compareMoney(a: string, b: string): number {
  const diff = scaled(a) - scaled(b);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

/** A JSON number for a stored decimal (for responses only; nothing is computed from it). */
export const moneyNumber = (value: string): number => Number(value);
export const optionalMoneyNumber = (value: string | null): number | null => (value === null ? null : Number(value));

const CURRENCIES = new Set<string>(Intl.supportedValuesOf('currency'));

export function checkCurrency(currency: string): void {
  if (!CURRENCIES.has(currency))
    throw domainError('invalid_currency', `${currency} is not an ISO 4217 currency code.`, [
      { path: 'body.currency', message: 'unknown ISO 4217 currency code' },
    ]);
}

/** A product slug made from any text (the shared transliteration, `product` when nothing is left). */
/** The longest product slug. */
export const PRODUCT_SLUG_MAX = 160;

export function productSlugify(text: string, maxLength = PRODUCT_SLUG_MAX): string {
  return slugify(text, maxLength, 'product');
}

/** Whether another product of the store than `exceptId` has `slug`, case-insensitively. */
export const productSlugInUse = (tx: RequestContext, storeId: string, slug: string, exceptId?: string): Promise<boolean> =>
  storeSlugInUse(tx, Product, storeId, slug, exceptId);

/** The first free slug of the store among `base`, `base-2`, `base-3`, … (base shortened so a number fits). */
export function freeProductSlug(tx: RequestContext, storeId: string, base: string): Promise<string> {
  return freeStoreSlug(tx, Product, storeId, base.slice(0, PRODUCT_SLUG_MAX - 7).replace(/-+$/, '') || 'product');
}

/** Refuses a brand that is not one of the store's (400 invalid_brand). */
export async function checkBrand(tx: RequestContext, storeId: string, brandId: string | null | undefined): Promise<void> {
  if (!brandId) return;
  if (!(await tenantRepository(tx, Brand).exists({ id: brandId, storeId }))) {
    throw domainError('invalid_brand', 'The brand is not a brand of the store.', [
      { path: 'body.brandId', message: 'not a brand of the store' },
    ]);
  }
}

async function missingOfStore(tx: RequestContext, table: 'categories' | 'product_tags', storeId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows: Array<{ id: string }> = await tx.manager.query(
    `SELECT id FROM ${table} WHERE tenant_id = $1 AND store_id = $2 AND id = ANY($3::uuid[])`,
    [tx.tenantId, storeId, ids],
  );
  const found = new Set(rows.map((row) => row.id.toLowerCase()));
  return ids.filter((id) => !found.has(id.toLowerCase()));
}

export async function checkCategories(tx: RequestContext, storeId: string, ids: string[]): Promise<void> {
  const missing = await missingOfStore(tx, 'categories', storeId, ids);
  if (missing.length) {
    throw domainError(
      'invalid_category',
      'Some categories are not categories of the store.',
      missing.map((id) => ({ path: `body.categoryIds[${ids.indexOf(id)}]`, message: 'not a category of the store' })),
    );
  }
}

export async function checkTags(tx: RequestContext, storeId: string, ids: string[]): Promise<void> {
  const missing = await missingOfStore(tx, 'product_tags', storeId, ids);
  if (missing.length) {
    throw domainError(
      'invalid_tag',
      'Some tags are not product tags of the store.',
      missing.map((id) => ({ path: `body.tagIds[${ids.indexOf(id)}]`, message: 'not a product tag of the store' })),
    );
  }
}

export type AttributeValues = Record<string, string | number | boolean>;

export interface AttributeCheck {
  /** The values keyed by the attribute's own spelling. */
  values: AttributeValues;
  unknown: string[];
  invalid: FieldError[];
  missingRequired: string[];
}

function valueProblem(attribute: CategoryAttribute, value: string | number | boolean): string | undefined {
  switch (attribute.type) {
    case 'text':
      return typeof value === 'string' ? undefined : 'must be text';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'enum':
      return typeof value === 'string' && attribute.values.includes(value) ? undefined : `must be one of ${attribute.values.join(', ')}`;
  }
}

/**
 * Checks attribute values against the attributes of `categoryIds` (names match case-insensitively;
 * a name defined by several categories must satisfy each definition).
 */
export async function checkAttributes(
  tx: RequestContext,
  storeId: string,
  categoryIds: string[],
  values: AttributeValues,
  path = 'body.attributes',
): Promise<AttributeCheck> {
  return checkAttributeValues(await loadAttributeDefinitions(tx, storeId, categoryIds), values, path);
}

/** The attribute definitions of `categoryIds`, in the order checkAttributeValues expects (position, then id). */
export async function loadAttributeDefinitions(tx: RequestContext, storeId: string, categoryIds: string[]): Promise<CategoryAttribute[]> {
  if (!categoryIds.length) return [];
  return tenantRepository(tx, CategoryAttribute)
    .createQueryBuilder('a')
    .andWhere('a.storeId = :storeId', { storeId })
    .andWhere('a.categoryId IN (:...categoryIds)', { categoryIds })
    .orderBy('a.position', 'ASC')
    .addOrderBy('a.id', 'ASC')
    .getMany();
}

/** checkAttributes over definitions already read (a batch of products reads those of all its categories once). */
export function checkAttributeValues(
  definitions: readonly CategoryAttribute[],
  values: AttributeValues,
  path = 'body.attributes',
): AttributeCheck {
  const byName = new Map<string, CategoryAttribute[]>();
  for (const definition of definitions)
    byName.set(definition.name.toLowerCase(), [...(byName.get(definition.name.toLowerCase()) ?? []), definition]);
  const result: AttributeCheck = { values: {}, unknown: [], invalid: [], missingRequired: [] };
  const given = new Set<string>();
  for (const [name, value] of Object.entries(values)) {
    const matching = byName.get(name.toLowerCase());
    if (!matching) {
      result.unknown.push(name);
      continue;
    }
    given.add(name.toLowerCase());
    for (const definition of matching) {
      const problem = valueProblem(definition, value);
      if (problem) {
        result.invalid.push({ path: `${path}.${name}`, message: `${name} ${problem}` });
        break;
      }
    }
    result.values[matching[0]!.name] = value;
  }
  for (const [name, matching] of byName) {
    if (!given.has(name) && matching.some((definition) => definition.required)) result.missingRequired.push(matching[0]!.name);
  }
  return result;
}

/** Throws the first kind of attribute problem; missing required attributes only when `published`. */
export function assertAttributes(check: AttributeCheck, published: boolean, path = 'body.attributes'): void {
  if (check.unknown.length) {
    throw domainError(
      'unknown_attribute',
      `Unknown attributes for the product's categories: ${check.unknown.join(', ')}.`,
      check.unknown.map((name) => ({ path: `${path}.${name}`, message: `${name} is not an attribute of the product's categories` })),
    );
  }
  if (check.invalid.length) throw domainError('invalid_attribute', 'Some attribute values are invalid.', check.invalid);
  if (published && check.missingRequired.length) {
    throw domainError(
      'missing_required_attributes',
      `A published product needs its required attributes: ${check.missingRequired.join(', ')}.`,
      check.missingRequired.map((name) => ({ path: `${path}.${name}`, message: `${name} is required` })),
    );
  }
}
