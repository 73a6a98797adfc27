/**
 * The attributes a category asks of its products: read the set, replace the set.
 *
 * Replacing keeps the id of every attribute whose name stays (compared case-insensitively; a change of
 * case only renames it), deletes the attributes no longer named and creates the new ones; position is
 * the index in the list. A change records one audit entry (`category.set_attributes`, the lists before
 * and after) and one outbox row for the category; sending the same set again records neither.
 */
import { Category, CategoryAttribute, ProductCategory } from '../../storage/entities';
import { checkAttributes } from '../../domain/product-rules';
import { loadProduct } from '../products/products.view';
import type { CategoryAttributeType } from '../../storage/entities/category-attribute.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { requireStore } from '../../domain/store-access';
import { categoryNotFound } from './categories.tree';
import type { CategoryAttributeInput } from './categories.schemas';
import type { InputOf } from '../http/typed-schema';

export interface AttributeView {
  id: string;
  name: string;
  type: CategoryAttributeType;
  values: string[];
  required: boolean;
  filterable: boolean;
  position: number;
}

export type AttributeInput = InputOf<typeof CategoryAttributeInput>;

function attributeView(row: CategoryAttribute): AttributeView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    values: row.values ?? [],
    required: row.required,
    filterable: row.filterable,
    position: row.position,
  };
}

async function attributesOf(ctx: RequestContext, categoryId: string): Promise<AttributeView[]> {
  const rows = await tenantRepository(ctx, CategoryAttribute).find({ where: { categoryId }, order: { position: 'ASC', id: 'ASC' } });
  return rows.map(attributeView);
}

/** The category (404 also for another tenant's, or another store's for an API key). */
async function categoryFor(ctx: RequestContext, id: string, forWrite: boolean): Promise<Category> {
  const categories = tenantRepository(ctx, Category, categoryNotFound);
  const category = await categories.getOneBy({ id });
  await requireStore(ctx, category.storeId, { forWrite });
  if (!forWrite) return category;
  // Serialises concurrent replacements of one category's set.
  const locked = await categories.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!locked) throw categoryNotFound();
  return locked;
}

export async function listCategoryAttributes(ctx: RequestContext, categoryId: string): Promise<{ items: AttributeView[] }> {
  await categoryFor(ctx, categoryId, false);
  return { items: await attributesOf(ctx, categoryId) };
}

const comparable = (list: AttributeView[]) =>
  list.map(({ id, name, type, values, required, filterable, position }) => ({ id, name, type, values, required, filterable, position }));

export async function setCategoryAttributes(
  ctx: RequestContext,
  categoryId: string,
  input: { attributes: AttributeInput[] },
): Promise<{ items: AttributeView[] }> {
  return inTransaction(ctx, async (tx) => {
    const category = await categoryFor(tx, categoryId, true);
    const repo = tenantRepository(tx, CategoryAttribute);
    const current = await repo.find({ where: { categoryId }, order: { position: 'ASC', id: 'ASC' } });
    const before = current.map(attributeView);
    const byName = new Map(current.map((row) => [row.name.toLowerCase(), row]));
    const kept = new Set<string>();
    const now = new Date();

    const planned = input.attributes.map((attribute, position) => {
      const existing = byName.get(attribute.name.toLowerCase());
      if (existing) kept.add(existing.id);
      return {
        existing,
        values: {
          name: attribute.name,
          type: attribute.type,
          values: attribute.type === 'enum' ? (attribute.values ?? []) : [],
          required: attribute.required,
          filterable: attribute.filterable,
          position,
        },
      };
    });
    const after: AttributeView[] = planned.map(({ existing, values }) => ({ id: existing?.id ?? uuidv7(), ...values }));
    if (JSON.stringify(comparable(before)) === JSON.stringify(comparable(after))) return { items: before };

    // Removed first, then kept, then new: the unique index on (category, lower(name)) never sees two at once.
    for (const row of current) if (!kept.has(row.id)) await repo.delete({ id: row.id });
    for (const [index, { existing, values }] of planned.entries()) {
      if (existing) {
        const same = JSON.stringify(attributeView(existing)) === JSON.stringify(after[index]);
        if (!same) await repo.update({ id: existing.id }, { ...values, updatedAt: now });
      } else {
        await tx.manager.insert(
          CategoryAttribute,
          repo.create({ id: after[index]!.id, storeId: category.storeId, categoryId, ...values, createdAt: now, updatedAt: now }),
        );
      }
    }
    await recordAudit(tx, {
      action: 'category.set_attributes',
      resourceType: 'category',
      resourceId: categoryId,
      before: { attributes: before },
      after: { attributes: after },
    });
    await enqueueOutbox(tx, { queue: 'index', topic: 'category.updated', aggregateType: 'category', aggregateId: categoryId });
    return { items: after };
  });
}

export interface ProductAttributeReport {
  productId: string;
  valid: boolean;
  /** Required attributes of the product's categories that the product has no value for. */
  missing: string[];
  /** Values that break their attribute's type or allowed values. */
  invalid: Array<{ path: string; message: string }>;
  /** Values whose name no category of the product defines. */
  unknown: string[];
}

/** Checks a stored product's attribute values against the attributes of its categories (nothing is changed). */
export async function validateProductAttributes(ctx: RequestContext, productId: string): Promise<ProductAttributeReport> {
  const product = await loadProduct(ctx, productId);
  const categoryIds = (await ctx.manager.find(ProductCategory, { where: { productId: product.id } })).map((c) => c.categoryId);
  const check = await checkAttributes(ctx, product.storeId, categoryIds, product.attributes, 'attributes');
  return {
    productId: product.id,
    valid: check.missingRequired.length === 0 && check.invalid.length === 0 && check.unknown.length === 0,
    missing: check.missingRequired,
    invalid: check.invalid,
    unknown: check.unknown,
  };
}
