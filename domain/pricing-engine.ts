/**
 * The pricing engine: one place that turns a product's stored price into the price a shopper pays,
 * after the store's pricing rules and flash-sale campaigns. Used by `POST /pricing/compute`, by orders
 * (`priceLines`), and by the search index (`publicPrices`: no customer group, quantity 1).
 *
 * Policy (also in docs/commerce.md, "Pricing rules", and the DTO descriptions):
 * 1. A rule applies to a line when it is active, `at` is inside its window (startsAt ≤ at < endsAt,
 *    open ends allowed), its scope matches the product (ALL; PRODUCTS by id; CATEGORIES by a category
 *    of the product or any ancestor of one, i.e. the category's whole subtree; BRANDS; COLLECTIONS)
 *    and, when it names customer groups, the buyer is in one of them. FIXED_AMOUNT and FIXED_PRICE
 *    rules are amounts in the store's currency and apply only to products priced in it.
 * 2. Its value at a quantity is the value of the largest tier whose minQuantity ≤ quantity, else its
 *    own value. PERCENT takes that percent off, FIXED_AMOUNT takes that amount off each unit,
 *    FIXED_PRICE sets the unit price to the value (only when lower). A rule that takes nothing off is
 *    not listed.
 * 3. Rules are ordered by priority (higher first), then by id (older first). Non-stackable rules are
 *    alternatives: the one giving the lowest price wins (the first in that order on a tie). Stackable
 *    rules are applied one after the other, in that order, each to the price the previous one left.
 *    The buyer gets the lower of the two results (the single rule on a tie); they are never combined.
 * 4. Flash sales: a PUBLISHED campaign whose window contains `at` offers its sale price (or percent off)
 *    for its products and for every product of its categories' subtrees; among several offers the
 *    lowest wins. A capped product's offer holds only while soldCount + quantity ≤ stockCap. The flash
 *    price wins over the rule-priced price when it is lower or equal; rules never stack on a flash
 *    price. A sale price not below the base price is no offer.
 * 5. Never below 0. Everything is exact decimal arithmetic (BigInt units of 10^-12); the unit price is
 *    rounded half up (away from zero) to the currency's minor unit once, at the end. The listed
 *    amounts are differences of the rounded running prices, so base − Σ amounts = final unit price.
 */
import { AppError } from '../lib/errors';
import { divideHalfUp, formatUnits, minorUnit, rescale, toUnits } from './money';
import type { PricingRuleScope, PricingRuleTier, PricingRuleType } from '../storage/entities/pricing-rule.entity';
import { domainError } from './domain.errors';

/** Anything that runs SQL: a DataSource, an EntityManager (a transaction's included). */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Internal scale: amounts are BigInt counts of 10^-12. */
const ENGINE_SCALE = 12;
const fromStored = (value: string | number): bigint => rescale(toUnits(value), 4, ENGINE_SCALE);
const HUNDRED_PERCENT = 100n * 10_000n; // percent values at scale 4

export interface EngineRule {
  id: string;
  name: string;
  type: PricingRuleType;
  value: string;
  scope: PricingRuleScope;
  targetIds: ReadonlySet<string>;
  customerGroups: readonly string[];
  tiers: readonly PricingRuleTier[];
  priority: number;
  stackable: boolean;
}

export interface FlashOffer {
  campaignId: string;
  name: string;
  slug: string;
  endsAt: Date;
  kind: 'PRODUCT' | 'CATEGORY';
  targetId: string;
  salePrice: string | null;
  discountPercent: string | null;
  stockCap: number | null;
  soldCount: number;
}

/** What the engine needs to know about a product beyond its price. */
export interface ProductFacts {
  id: string;
  currency: string;
  storeCurrency: string;
  brandId: string | null;
  /** Assigned categories and all their ancestors. */
  categoryIds: ReadonlySet<string>;
  collectionIds: ReadonlySet<string>;
}

export interface AppliedAdjustment {
  kind: 'PRICING_RULE' | 'FLASH_SALE';
  /** The rule's or the campaign's id. */
  id: string;
  name: string;
  type: PricingRuleType | 'SALE_PRICE' | 'PERCENT';
  /** The rule's value at this quantity, the campaign's sale price or percent. */
  value: number;
  /** Taken off one unit, in the minor unit of the currency. */
  amount: number;
}

export interface FlashSaleMatch {
  campaignId: string;
  name: string;
  slug: string;
  endsAt: string;
  kind: 'PRODUCT' | 'CATEGORY';
  stockCap: number | null;
  soldCount: number;
}

export interface UnitPrice {
  decimals: number;
  /** Base and final unit prices rounded to the minor unit (BigInt units of 10^-decimals). */
  base: bigint;
  final: bigint;
  applied: AppliedAdjustment[];
  flashSale: FlashSaleMatch | null;
}

const num = (units: bigint, decimals: number): number => Number(formatUnits(units, decimals));

function ruleMatches(rule: EngineRule, facts: ProductFacts, groups: ReadonlySet<string> | null): boolean {
  if (rule.customerGroups.length > 0 && (!groups || !rule.customerGroups.some((g) => groups.has(g)))) return false;
  if (rule.type !== 'PERCENT' && facts.currency !== facts.storeCurrency) return false;
  switch (rule.scope) {
    case 'ALL':
      return true;
    case 'PRODUCTS':
      return rule.targetIds.has(facts.id);
    case 'BRANDS':
      return facts.brandId !== null && rule.targetIds.has(facts.brandId);
    case 'CATEGORIES':
      return [...facts.categoryIds].some((id) => rule.targetIds.has(id));
    case 'COLLECTIONS':
      return [...facts.collectionIds].some((id) => rule.targetIds.has(id));
    default:
      return false;
  }
}

/** The rule's value at `quantity`: the largest tier reached, else its own. */
export function valueAt(rule: Pick<EngineRule, 'value' | 'tiers'>, quantity: number): string {
  let best: PricingRuleTier | undefined;
  for (const tier of rule.tiers) if (tier.minQuantity <= quantity && (!best || tier.minQuantity > best.minQuantity)) best = tier;
  return best ? best.value : rule.value;
}

function percentOff(price: bigint, percent: string): bigint {
  return price - divideHalfUp(price * toUnits(percent), HUNDRED_PERCENT);
}

function applyRule(type: PricingRuleType, value: string, price: bigint): bigint {
  let next: bigint;
  if (type === 'PERCENT') next = percentOff(price, value);
  else if (type === 'FIXED_AMOUNT') next = price - fromStored(value);
  else next = fromStored(value) < price ? fromStored(value) : price;
  return next < 0n ? 0n : next;
}

export const compareRules = (a: Pick<EngineRule, 'priority' | 'id'>, b: Pick<EngineRule, 'priority' | 'id'>): number =>
  b.priority - a.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The pure core: the unit price of one product at `quantity` for the buyer's customer `groups` (null:
 * the public price) under `rules` and `offers` already filtered to the moment of pricing.
 */
export function priceUnit(
  basePrice: string,
  facts: ProductFacts,
  quantity: number,
  groups: ReadonlySet<string> | null,
  rules: readonly EngineRule[],
  offers: readonly FlashOffer[],
): UnitPrice {
  const decimals = minorUnit(facts.currency);
  const round = (units: bigint): bigint => rescale(units < 0n ? 0n : units, ENGINE_SCALE, decimals);
  const base = fromStored(basePrice);

  // Pricing rules: the best single non-stackable rule, or the stackable chain.
  const matching = rules.filter((r) => ruleMatches(r, facts, groups)).sort(compareRules);
  let bestSingle: { rule: EngineRule; value: string; price: bigint } | undefined;
  const chain: Array<{ rule: EngineRule; value: string; before: bigint; after: bigint }> = [];
  let running = base;
  for (const rule of matching) {
    const value = valueAt(rule, quantity);
    if (rule.stackable) {
      const after = applyRule(rule.type, value, running);
      if (after < running) chain.push({ rule, value, before: running, after });
      running = after;
    } else {
      const price = applyRule(rule.type, value, base);
      if (price < base && (!bestSingle || price < bestSingle.price)) bestSingle = { rule, value, price };
    }
  }
  type Step = {
    kind: AppliedAdjustment['kind'];
    id: string;
    name: string;
    type: AppliedAdjustment['type'];
    value: string;
    before: bigint;
    after: bigint;
  };
  let steps: Step[] = [];
  let rulePrice = base;
  const ruleStep = (s: { rule: EngineRule; value: string; before: bigint; after: bigint }): Step => ({
    kind: 'PRICING_RULE',
    id: s.rule.id,
    name: s.rule.name,
    type: s.rule.type,
    value: s.value,
    before: s.before,
    after: s.after,
  });
  if (bestSingle && bestSingle.price <= running) {
    rulePrice = bestSingle.price;
    steps = [ruleStep({ rule: bestSingle.rule, value: bestSingle.value, before: base, after: bestSingle.price })];
  } else if (chain.length > 0) {
    rulePrice = running;
    steps = chain.map(ruleStep);
  }

  // Flash sales: the lowest offer, when it is not above the rule-priced price.
  let flash: { offer: FlashOffer; price: bigint } | undefined;
  for (const offer of offers) {
    if (offer.stockCap !== null && offer.soldCount + quantity > offer.stockCap) continue;
    const matches = offer.kind === 'PRODUCT' ? offer.targetId === facts.id : facts.categoryIds.has(offer.targetId);
    if (!matches) continue;
    const price = offer.salePrice !== null ? fromStored(offer.salePrice) : percentOff(base, offer.discountPercent ?? '0');
    if (price >= base) continue;
    if (!flash || price < flash.price) flash = { offer, price };
  }
  let flashSale: FlashSaleMatch | null = null;
  if (flash && flash.price <= rulePrice) {
    const { offer } = flash;
    steps = [
      {
        kind: 'FLASH_SALE',
        id: offer.campaignId,
        name: offer.name,
        type: offer.salePrice !== null ? 'SALE_PRICE' : 'PERCENT',
        value: offer.salePrice ?? offer.discountPercent ?? '0',
        before: base,
        after: flash.price < 0n ? 0n : flash.price,
      },
    ];
    flashSale = {
      campaignId: offer.campaignId,
      name: offer.name,
      slug: offer.slug,
      endsAt: offer.endsAt.toISOString(),
      kind: offer.kind,
      stockCap: offer.stockCap,
      soldCount: offer.soldCount,
    };
  }

  const applied = steps.map((s) => ({
    kind: s.kind,
    id: s.id,
    name: s.name,
    type: s.type,
    value: Number(s.value),
    amount: num(round(s.before) - round(s.after), decimals),
  }));
  const finalExact = steps.length > 0 ? steps[steps.length - 1]!.after : base;
  return { decimals, base: round(base), final: round(finalExact), applied, flashSale };
}

// ---- loading ---------------------------------------------------------------------------------------

interface RuleRow {
  id: string;
  store_id: string;
  name: string;
  type: PricingRuleType;
  value: string;
  scope: PricingRuleScope;
  target_ids: string[];
  customer_groups: string[];
  tiers: Array<{ minQuantity: number; value: string | number }>;
  priority: number;
  stackable: boolean;
}

interface OfferRow {
  store_id: string;
  campaign_id: string;
  name: string;
  slug: string;
  ends_at: Date;
  kind: 'PRODUCT' | 'CATEGORY';
  target_id: string;
  sale_price: string | null;
  discount_percent: string | null;
  stock_cap: number | null;
  sold_count: number;
}

/** Each row made into a `T`, in lists by the row's store, in row order. */
function byStore<Row extends { store_id: string }, T>(rows: Row[], make: (row: Row) => T): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) grouped.set(row.store_id, [...(grouped.get(row.store_id) ?? []), make(row)]);
  return grouped;
}

/** Rules and offers of `storeIds` in force at `at`, by store. */
export async function loadInForce(
  db: Queryable,
  storeIds: string[],
  at: Date,
): Promise<{ rules: Map<string, EngineRule[]>; offers: Map<string, FlashOffer[]> }> {
  const [ruleRows, offerRows] = (await Promise.all([
    db.query(
      `SELECT id, store_id, name, type, value, scope, target_ids, customer_groups, tiers, priority, stackable FROM pricing_rules
        WHERE store_id = ANY($1::uuid[]) AND is_active AND (starts_at IS NULL OR starts_at <= $2) AND (ends_at IS NULL OR ends_at > $2)`,
      [storeIds, at],
    ),
    db.query(
      `SELECT c.store_id, c.id AS campaign_id, c.name, c.slug, c.ends_at, i.kind, i.target_id, i.sale_price, i.discount_percent, i.stock_cap, i.sold_count
         FROM flash_sale_campaigns c JOIN flash_sale_items i ON i.campaign_id = c.id
        WHERE c.store_id = ANY($1::uuid[]) AND c.status = 'PUBLISHED' AND c.starts_at <= $2 AND c.ends_at > $2`,
      [storeIds, at],
    ),
  ])) as [RuleRow[], OfferRow[]];
  const rules = byStore(ruleRows, (r): EngineRule => ({
    id: r.id,
    name: r.name,
    type: r.type,
    value: r.value,
    scope: r.scope,
    targetIds: new Set(r.target_ids),
    customerGroups: r.customer_groups,
    tiers: r.tiers.map((t) => ({ minQuantity: t.minQuantity, value: String(t.value) })),
    priority: r.priority,
    stackable: r.stackable,
  }));
  const offers = byStore(offerRows, (o): FlashOffer => ({
    campaignId: o.campaign_id,
    name: o.name,
    slug: o.slug,
    endsAt: o.ends_at,
    kind: o.kind,
    targetId: o.target_id,
    salePrice: o.sale_price,
    discountPercent: o.discount_percent,
    stockCap: o.stock_cap,
    soldCount: o.sold_count,
  }));
  return { rules, offers };
}

/** Category ids (assigned and every ancestor) and collection ids of products. */
async function productLinks(
  db: Queryable,
  productIds: string[],
): Promise<{ categories: Map<string, Set<string>>; collections: Map<string, Set<string>> }> {
  const [categoryRows, collectionRows] = (await Promise.all([
    db.query(
      `WITH RECURSIVE pc AS (
         SELECT product_id, category_id FROM product_categories WHERE product_id = ANY($1::uuid[])
         UNION
         SELECT pc.product_id, c.parent_id FROM pc JOIN categories c ON c.id = pc.category_id WHERE c.parent_id IS NOT NULL)
       SELECT product_id, category_id FROM pc`,
      [productIds],
    ),
    db.query('SELECT product_id, collection_id FROM collection_items WHERE product_id = ANY($1::uuid[])', [productIds]),
  ])) as [Array<{ product_id: string; category_id: string }>, Array<{ product_id: string; collection_id: string }>];
  const categories = new Map<string, Set<string>>();
  for (const r of categoryRows) categories.set(r.product_id, (categories.get(r.product_id) ?? new Set()).add(r.category_id));
  const collections = new Map<string, Set<string>>();
  for (const r of collectionRows) collections.set(r.product_id, (collections.get(r.product_id) ?? new Set()).add(r.collection_id));
  return { categories, collections };
}

async function storeCurrencies(db: Queryable, storeIds: string[]): Promise<Map<string, string>> {
  const rows: Array<{ id: string; currency: string }> = await db.query('SELECT id, currency FROM stores WHERE id = ANY($1::uuid[])', [
    storeIds,
  ]);
  return new Map(rows.map((r) => [r.id, r.currency]));
}

// ---- public price (search index) -------------------------------------------------------------------

/**
 * A product row as the product document, the storefront and flash sales read it (snake_case columns),
 * not a request body: no DTO to derive it from.
 */
export interface PublicPriceInput {
  id: string;
  store_id: string;
  price: string;
  currency: string;
  brand_id: string | null;
}

export interface PublicPrice {
  /** The effective price as a decimal string rounded to the minor unit. */
  price: string;
  /** The base price rounded to the minor unit. */
  basePrice: string;
  discounted: boolean;
  flashSale: FlashSaleMatch | null;
}

/**
 * The price anyone sees at `at`: no customer group, quantity 1. Only products some rule or offer
 * touches are in the map; the others keep their stored price.
 */
export async function publicPrices(
  db: Queryable,
  products: readonly PublicPriceInput[],
  at: Date = new Date(),
): Promise<Map<string, PublicPrice>> {
  const out = new Map<string, PublicPrice>();
  if (products.length === 0) return out;
  const storeIds = [...new Set(products.map((p) => p.store_id))];
  const { rules, offers } = await loadInForce(db, storeIds, at);
  // Customer-group rules never change the public price.
  const publicRules = new Map([...rules].map(([store, list]) => [store, list.filter((r) => r.customerGroups.length === 0)] as const));
  const touched = products.filter((p) => (publicRules.get(p.store_id)?.length ?? 0) > 0 || (offers.get(p.store_id)?.length ?? 0) > 0);
  if (touched.length === 0) return out;
  const [links, currencies] = await Promise.all([
    productLinks(
      db,
      touched.map((p) => p.id),
    ),
    storeCurrencies(db, storeIds),
  ]);
  for (const p of touched) {
    const facts: ProductFacts = {
      id: p.id,
      currency: p.currency,
      storeCurrency: currencies.get(p.store_id) ?? p.currency,
      brandId: p.brand_id,
      categoryIds: links.categories.get(p.id) ?? new Set(),
      collectionIds: links.collections.get(p.id) ?? new Set(),
    };
    const unit = priceUnit(p.price, facts, 1, null, publicRules.get(p.store_id) ?? [], offers.get(p.store_id) ?? []);
    if (unit.applied.length === 0) continue;
    out.set(p.id, {
      price: formatUnits(unit.final, unit.decimals),
      basePrice: formatUnits(unit.base, unit.decimals),
      discounted: unit.final < unit.base,
      flashSale: unit.flashSale,
    });
  }
  return out;
}

// ---- lines (compute, orders) -----------------------------------------------------------------------

/**
 * A line to price, from the compute body (api/pricing ComputeInput) or an order's lines: the engine's own
 * argument, shared by callers whose bodies differ, so it is not derived from one DTO.
 */
export interface PriceLineInput {
  productId: string;
  variantId?: string | null;
  quantity: number;
}

export interface PricedLine {
  productId: string;
  variantId: string | null;
  productStatus: string;
  quantity: number;
  currency: string;
  baseUnitPrice: number;
  unitPrice: number;
  /** The variant's or product's compare-at price, as stored; null without one. */
  compareAtPrice: number | null;
  lineTotal: number;
  discountTotal: number;
  applied: AppliedAdjustment[];
  flashSale: FlashSaleMatch | null;
}

export interface PricedCart {
  currency: string;
  lines: PricedLine[];
  totals: { subtotal: number; discount: number; total: number };
}

export interface PriceLinesOptions {
  /** The buyer's customer groups (lowercase); none: only rules without customer groups apply. */
  customerGroups?: readonly string[];
}

/** 404 naming the line (the field errors say which item). */
const lineNotFound = (code: 'product_not_found' | 'variant_not_found', detail: string, path: string): AppError =>
  domainError(code, detail, [{ path, message: detail }]);
const productNotFound = (index: number): AppError =>
  lineNotFound('product_not_found', 'The product does not exist in this store.', `body.items[${index}].productId`);

/**
 * Prices cart lines of one store at `at` (for orders and compute). Throws 404 product_not_found /
 * variant_not_found (with the line's path) and 400 mixed_currencies when the products are priced in
 * different currencies. `db` may be a transaction's manager. Flash-sale stock is not consumed here:
 * an order calls recordFlashSaleSales (api/flash-sales/flash-sales.stock.ts) in its transaction.
 */
export async function priceLines(
  db: Queryable,
  storeId: string,
  lines: readonly PriceLineInput[],
  at: Date = new Date(),
  options: PriceLinesOptions = {},
): Promise<PricedCart> {
  const productIds = [...new Set(lines.map((l) => l.productId.toLowerCase()))];
  const variantIds = [...new Set(lines.flatMap((l) => (l.variantId ? [l.variantId.toLowerCase()] : [])))];
  const [products, variants] = (await Promise.all([
    db.query(
      'SELECT id, store_id, status, price, compare_at_price, currency, brand_id FROM products WHERE id = ANY($1::uuid[]) AND store_id = $2',
      [productIds, storeId],
    ),
    variantIds.length > 0
      ? db.query('SELECT id, product_id, price, compare_at_price FROM product_variants WHERE id = ANY($1::uuid[]) AND store_id = $2', [
          variantIds,
          storeId,
        ])
      : Promise.resolve([]),
  ])) as [
    Array<{
      id: string;
      store_id: string;
      status: string;
      price: string;
      compare_at_price: string | null;
      currency: string;
      brand_id: string | null;
    }>,
    Array<{ id: string; product_id: string; price: string | null; compare_at_price: string | null }>,
  ];
  const productBy = new Map(products.map((p) => [p.id, p]));
  const variantBy = new Map(variants.map((v) => [v.id, v]));
  lines.forEach((line, i) => {
    if (!productBy.has(line.productId.toLowerCase())) throw productNotFound(i);
    if (line.variantId) {
      const variant = variantBy.get(line.variantId.toLowerCase());
      if (!variant || variant.product_id !== line.productId.toLowerCase()) {
        throw lineNotFound('variant_not_found', 'The variant does not exist for this product.', `body.items[${i}].variantId`);
      }
    }
  });
  const currencies = new Set(products.map((p) => p.currency));
  if (currencies.size > 1)
    throw domainError('mixed_currencies', 'All items must be priced in one currency.', [
      { path: 'body.items', message: `items are priced in ${[...currencies].sort().join(', ')}` },
    ]);
  const currency = [...currencies][0] ?? 'EUR';
  const decimals = minorUnit(currency);

  const { rules, offers } = await loadInForce(db, [storeId], at);
  const storeRules = rules.get(storeId) ?? [];
  const storeOffers = offers.get(storeId) ?? [];
  const needLinks = storeRules.length > 0 || storeOffers.length > 0;
  const links = needLinks
    ? await productLinks(db, productIds)
    : { categories: new Map<string, Set<string>>(), collections: new Map<string, Set<string>>() };
  const storeCurrency = (await storeCurrencies(db, [storeId])).get(storeId) ?? currency;
  const groups = new Set((options.customerGroups ?? []).map((g) => g.toLowerCase()));

  let subtotal = 0n;
  let total = 0n;
  const priced = lines.map((line): PricedLine => {
    const product = productBy.get(line.productId.toLowerCase())!;
    const variant = line.variantId ? variantBy.get(line.variantId.toLowerCase()) : undefined;
    const facts: ProductFacts = {
      id: product.id,
      currency: product.currency,
      storeCurrency,
      brandId: product.brand_id,
      categoryIds: links.categories.get(product.id) ?? new Set(),
      collectionIds: links.collections.get(product.id) ?? new Set(),
    };
    const unit = priceUnit(variant?.price ?? product.price, facts, line.quantity, groups, storeRules, storeOffers);
    const qty = BigInt(line.quantity);
    subtotal += unit.base * qty;
    total += unit.final * qty;
    const compareAt = variant
      ? (variant.compare_at_price ?? (variant.price === null ? product.compare_at_price : null))
      : product.compare_at_price;
    return {
      productId: product.id,
      variantId: variant?.id ?? null,
      productStatus: product.status,
      quantity: line.quantity,
      currency: product.currency,
      baseUnitPrice: num(unit.base, decimals),
      unitPrice: num(unit.final, decimals),
      compareAtPrice: compareAt === null ? null : Number(formatUnits(toUnits(compareAt), 4)),
      lineTotal: num(unit.final * qty, decimals),
      discountTotal: num((unit.base - unit.final) * qty, decimals),
      applied: unit.applied,
      flashSale: unit.flashSale,
    };
  });
  return {
    currency,
    lines: priced,
    totals: { subtotal: num(subtotal, decimals), discount: num(subtotal - total, decimals), total: num(total, decimals) },
  };
}
