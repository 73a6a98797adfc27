/**
 * Shipping quotes: the options a store offers for a cart and an address, cheapest first. Used by the
 * public quote operation and by orders (quoteShipping takes a DataSource or a transaction's manager).
 *
 * 1. The cart: every item names a published product (productId) or a variant of one (variantId) of the
 *    store; anything else is 400 `invalid_item`. Weight of one unit: the variant's weight, else its
 *    product's, else the weightGrams given with the item, else 0 g. Order value: the orderValue given,
 *    else the sum of quantity × catalog price (the variant's price, else its product's).
 * 2. Candidates: the store's active rates whose destination covers the address: a DISTRICT rate when
 *    both city and district match, a CITY rate when the city matches, and every EVERYWHERE_ELSE rate.
 *    Names compare case- and accent-insensitively with whitespace collapsed (placeKey).
 * 3. Bands: weight and order value must fall in the rate's bands (min inclusive, max exclusive; a null
 *    bound is open).
 * 4. Specificity: the most specific destination level with at least one applicable rate wins and hides
 *    the levels below it (a district's rates replace the city's, a city's replace the fallback), so a
 *    merchant overrides the general price for a place; when a specific level has no rate for this cart
 *    (e.g. out of its weight bands) the next level's options are offered instead of none.
 * 5. Price: 0 and free = true when the order value is at or above the rate's free-shipping threshold
 *    (or the rate costs 0); otherwise the rate's price. Options are sorted by price, then the shortest
 *    delivery estimate (max days, unknown last), then name and id.
 * 6. Price visibility (public quotes): when the store does not show prices to the visitor, catalog
 *    prices are never used, since the order value, value bands and free-shipping thresholds would
 *    reveal them (one product, quantities 1, 2, 3, … against a threshold is a binary search). The
 *    order value is then the orderValue the cart gives (the client's own number), or, without one,
 *    unknown: the quote is made as for an order value of 0 and answers no orderValue.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { type FieldError } from '../../lib/errors';
import { formatUnits, toUnits, SCALE } from '../../domain/money';
import { storeNotFound } from '../../domain/store-access';
import { asPriceVisibility, type PriceVisibility } from '../../domain/price-visibility';
import { shippingRatesError } from './shipping-rates.errors';

export type DestinationLevel = 'DISTRICT' | 'CITY' | 'EVERYWHERE_ELSE';

/** The destination level of a rate from its city and district. */
export function destinationLevel(rate: { city: string | null; district: string | null }): DestinationLevel {
  return rate.district !== null ? 'DISTRICT' : rate.city !== null ? 'CITY' : 'EVERYWHERE_ELSE';
}

/** A place name as compared: accents dropped (NFKD), lowercase (dotless ı as i), whitespace collapsed, trimmed. */
export function placeKey(name: string): string {
  return name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/ı/g, 'i').replace(/\s+/gu, ' ').trim();
}

export interface QuoteCartItem {
  productId?: string;
  variantId?: string;
  quantity: number;
  /** Weight of one unit, used only when the catalog holds none for the item. */
  weightGrams?: number;
}

export interface QuoteCart {
  items: QuoteCartItem[];
  /** Overrides the catalog-price total (e.g. after discounts); a JSON number or decimal text. */
  orderValue?: number | string;
}

export interface QuoteAddress {
  city: string;
  district?: string | null;
}

export interface ShippingOption {
  rateId: string;
  name: string;
  destination: DestinationLevel;
  price: number;
  ratePrice: number;
  free: boolean;
  freeShippingThreshold: number | null;
  currency: string;
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
}

export interface ShippingQuote {
  storeId: string;
  currency: string;
  weightGrams: number;
  /** Absent when catalog prices are hidden from the visitor and the cart gave no orderValue. */
  orderValue?: number;
  /** Public quotes: whether the visitor may see the store's prices. */
  pricesShown?: boolean;
  options: ShippingOption[];
}

export interface QuoteOptions {
  /**
   * Set for a public quote: whether this visitor may see the store's prices (pricesShown of
   * domain/price-visibility.ts). Left out (merchants, orders), catalog prices always count.
   */
  pricesShown?: (visibility: PriceVisibility) => boolean;
}

type Db = DataSource | EntityManager;

interface RateRow {
  id: string;
  name: string;
  city: string | null;
  district: string | null;
  min_weight_grams: number | null;
  max_weight_grams: number | null;
  min_order_value: string | null;
  max_order_value: string | null;
  price: string;
  free_shipping_threshold: string | null;
  currency: string;
  min_delivery_days: number | null;
  max_delivery_days: number | null;
}

const LEVELS: readonly DestinationLevel[] = ['DISTRICT', 'CITY', 'EVERYWHERE_ELSE'];

const units = (value: string | null): bigint | null => (value === null ? null : toUnits(value));
const toNumber = (value: bigint): number => Number(formatUnits(value, SCALE));

/**
 * Weight (grams) and order value (units of 1/10 000) of the cart, from the store's published catalog;
 * the order value is null when the cart gives none and catalog prices may not be used.
 */
async function measureCart(
  db: Db,
  storeId: string,
  cart: QuoteCart,
  catalogPrices: boolean,
): Promise<{ weightGrams: number; orderValue: bigint | null }> {
  const productIds = [...new Set(cart.items.flatMap((item) => (item.productId ? [item.productId.toLowerCase()] : [])))];
  const variantIds = [...new Set(cart.items.flatMap((item) => (item.variantId ? [item.variantId.toLowerCase()] : [])))];
  const products = new Map<string, { price: string; weight: number | null }>();
  const variants = new Map<string, { price: string; weight: number | null }>();
  if (productIds.length) {
    const rows: Array<{ id: string; price: string; weight_grams: number | null }> = await db.query(
      `SELECT id, price, weight_grams FROM products WHERE store_id = $1 AND id = ANY($2::uuid[]) AND status = 'PUBLISHED'`,
      [storeId, productIds],
    );
    for (const row of rows) products.set(row.id, { price: row.price, weight: row.weight_grams });
  }
  if (variantIds.length) {
    const rows: Array<{ id: string; price: string; weight_grams: number | null }> = await db.query(
      `SELECT v.id, coalesce(v.price, p.price) AS price, coalesce(v.weight_grams, p.weight_grams) AS weight_grams
         FROM product_variants v JOIN products p ON p.id = v.product_id
        WHERE v.store_id = $1 AND p.store_id = $1 AND v.id = ANY($2::uuid[]) AND p.status = 'PUBLISHED'`,
      [storeId, variantIds],
    );
    for (const row of rows) variants.set(row.id, { price: row.price, weight: row.weight_grams });
  }
  const errors: FieldError[] = [];
  let weightGrams = 0;
  let value = 0n;
  cart.items.forEach((item, i) => {
    const found = item.productId ? products.get(item.productId.toLowerCase()) : variants.get(item.variantId!.toLowerCase());
    if (!found) {
      errors.push(
        item.productId
          ? { path: `body.items[${i}].productId`, message: 'not a published product of the store' }
          : { path: `body.items[${i}].variantId`, message: 'not a variant of a published product of the store' },
      );
      return;
    }
    weightGrams += item.quantity * (found.weight ?? item.weightGrams ?? 0);
    value += BigInt(item.quantity) * toUnits(found.price);
  });
  if (errors.length) throw shippingRatesError('invalid_item', 'Some items are not published products of the store.', errors);
  if (cart.orderValue !== undefined) return { weightGrams, orderValue: toUnits(cart.orderValue) };
  return { weightGrams, orderValue: catalogPrices ? value : null };
}

const inBand = (value: bigint, min: bigint | null, max: bigint | null): boolean =>
  (min === null || value >= min) && (max === null || value < max);

/**
 * Every shipping option of store `storeId` for `cart` shipped to `address`, cheapest first (see the
 * module comment for the rules). 404 `store_not_found` for an unknown or archived store; 400
 * `invalid_item` when an item is not a published product or variant of the store. Read-only.
 */
export async function quoteShipping(
  db: Db,
  storeId: string,
  cart: QuoteCart,
  address: QuoteAddress,
  quoteOptions: QuoteOptions = {},
): Promise<ShippingQuote> {
  const stores: Array<{ id: string; currency: string; price_visibility: string }> = await db.query(
    `SELECT id, currency, price_visibility FROM stores WHERE id = $1 AND status <> 'archived'`,
    [storeId],
  );
  const store = stores[0];
  if (!store) throw storeNotFound();
  const pricesShown = quoteOptions.pricesShown?.(asPriceVisibility(store.price_visibility));
  const measured = await measureCart(db, store.id, cart, pricesShown !== false);
  const { weightGrams } = measured;
  // Unknown (hidden catalog prices, none given): quoted as for an order value of 0.
  const orderValue = measured.orderValue ?? 0n;
  const cityKey = placeKey(address.city);
  const districtKey = address.district ? placeKey(address.district) : null;
  const rates: RateRow[] = await db.query(
    `SELECT id, name, city, district, min_weight_grams, max_weight_grams, min_order_value, max_order_value, price,
            free_shipping_threshold, currency, min_delivery_days, max_delivery_days
       FROM shipping_rates
      WHERE store_id = $1 AND is_active
        AND (city_key IS NULL OR (city_key = $2 AND (district_key IS NULL OR district_key = $3)))`,
    [store.id, cityKey, districtKey],
  );
  const weight = BigInt(weightGrams);
  const applicable = rates.filter(
    (rate) =>
      inBand(
        weight,
        rate.min_weight_grams === null ? null : BigInt(rate.min_weight_grams),
        rate.max_weight_grams === null ? null : BigInt(rate.max_weight_grams),
      ) && inBand(orderValue, units(rate.min_order_value), units(rate.max_order_value)),
  );
  const level = LEVELS.find((l) => applicable.some((rate) => destinationLevel(rate) === l));
  const options = applicable
    .filter((rate) => destinationLevel(rate) === level)
    .map((rate) => {
      const ratePrice = toUnits(rate.price);
      const threshold = units(rate.free_shipping_threshold);
      const free = ratePrice === 0n || (threshold !== null && orderValue >= threshold);
      return {
        sortPrice: free ? 0n : ratePrice,
        option: {
          rateId: rate.id,
          name: rate.name,
          destination: destinationLevel(rate),
          price: free ? 0 : toNumber(ratePrice),
          ratePrice: toNumber(ratePrice),
          free,
          freeShippingThreshold: threshold === null ? null : toNumber(threshold),
          currency: rate.currency.trim(),
          minDeliveryDays: rate.min_delivery_days,
          maxDeliveryDays: rate.max_delivery_days,
        } satisfies ShippingOption,
      };
    })
    .sort((a, b) => {
      if (a.sortPrice !== b.sortPrice) return a.sortPrice < b.sortPrice ? -1 : 1;
      const da = a.option.maxDeliveryDays ?? Number.MAX_SAFE_INTEGER;
      const db2 = b.option.maxDeliveryDays ?? Number.MAX_SAFE_INTEGER;
      if (da !== db2) return da - db2;
      return a.option.name.localeCompare(b.option.name) || (a.option.rateId < b.option.rateId ? -1 : 1);
    })
    .map((entry) => entry.option);
  return {
    storeId: store.id,
    currency: store.currency,
    weightGrams,
    ...(measured.orderValue === null ? {} : { orderValue: toNumber(measured.orderValue) }),
    ...(pricesShown === undefined ? {} : { pricesShown }),
    options,
  };
}
