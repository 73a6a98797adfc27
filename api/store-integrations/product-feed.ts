/**
 * The product feed of a connected `marketplace_feed` integration (docs/integrations.md, "Product
 * feed"): the store's published products as a Google Merchant Center feed, RSS 2.0 with the
 * `g:` namespace or CSV with the same attributes, read from PostgreSQL (the source the search index
 * is built from), so a product published, changed, unpublished or deleted shows in the next read.
 *
 * A store may hold 250 000 products: the feed is read in keyset batches by id and streamed, never
 * held whole. The first batch is read before the answer starts, so a failure there is still a
 * proper error response; a later failure can only cut the download off (it is logged).
 *
 * Caching: the ETag is a digest of everything the feed shows (an order-independent hash of the id
 * and update time of every published product, the store's brands, the integration's settings and
 * the price visibility), Last-Modified the latest of those times; a conditional request that
 * matches answers 304 without reading the products.
 */
import { createHash, createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import { isTenantSuspended } from '../billing/suspension';
import { constantTimeEqual, deriveKey } from '../auth/secrets';
import { toCsv, type CsvColumn } from '../http/csv';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { storeIntegrationsError } from './store-integrations.errors';

const BATCH = 500;
const TITLE_MAX = 150;
const DESCRIPTION_MAX = 5000;
const FORMAT_VERSION = 'feed-v1';

export type FeedFormat = 'xml' | 'csv';

/** The feed token of integration `id`: an HMAC of its id under a key derived from APP_SECRET (nothing stored). */
export function feedToken(appSecret: string, integrationId: string): string {
  return createHmac('sha256', deriveKey(appSecret, 'product-feed-token')).update(integrationId.toLowerCase()).digest('base64url');
}

/** Where the feed of integration `id` of store `storeId` is read (the token in the query when access is token). */
export function feedUrls(ctx: RequestContext, storeId: string, id: string, access: unknown): { xmlUrl: string; csvUrl: string } {
  const { publicBaseUrl, appSecret } = servicesOf(ctx).config;
  const base = `${publicBaseUrl}/api/v1/store-integrations/public/stores/${storeId}/feeds/${id}/products`;
  const query = access === 'token' ? `?token=${feedToken(appSecret, id)}` : '';
  return { xmlUrl: `${base}.xml${query}`, csvUrl: `${base}.csv${query}` };
}

interface FeedRow {
  id: string;
  title: string;
  slug: string;
  description_html: string;
  price: string;
  compare_at_price: string | null;
  currency: string;
  vendor_name: string | null;
  brand: string | null;
  image_url: string | null;
  in_stock: boolean;
  barcode: string | null;
  sku: string | null;
}

/** One feed item: Google Merchant Center attribute names without their `g:` prefix. */
interface FeedItem {
  id: string;
  title: string;
  description: string;
  link: string;
  image_link: string | null;
  availability: 'in_stock' | 'out_of_stock';
  price: string | null;
  sale_price: string | null;
  condition: 'new';
  brand: string | null;
  gtin: string | null;
  mpn: string | null;
}

export interface OpenedFeed {
  etag: string;
  lastModified: Date;
  /** The document; undefined when the request's conditions say the client's copy is current (304). */
  body?: Readable;
}

interface FeedTarget {
  storeId: string;
  storeName: string;
  pricesShown: boolean;
  includeOutOfStock: boolean;
  fingerprint: string;
  lastModified: Date;
}

const notFound = () => storeIntegrationsError('product_feed_not_found', 'There is no product feed at this address.');

/** The store and its enabled feed integration, or 404 product_feed_not_found whatever is missing (nothing tells which). */
async function feedTarget(ctx: RequestContext, storeId: string, integrationId: string, token: string | undefined): Promise<FeedTarget> {
  const [store] = (await ctx.manager.query(
    `SELECT id, tenant_id, name, price_visibility FROM stores WHERE id = $1 AND status <> 'archived'`,
    [storeId],
  )) as Array<{ id: string; tenant_id: string; name: string; price_visibility: string }>;
  if (!store || (await isTenantSuspended(ctx.manager, store.tenant_id))) throw notFound();
  const [integration] = (await ctx.manager.query(
    `SELECT id, settings, updated_at FROM store_integrations
      WHERE id = $1 AND store_id = $2 AND tenant_id = $3 AND kind = 'marketplace_feed' AND enabled`,
    [integrationId, store.id, store.tenant_id],
  )) as Array<{ id: string; settings: Record<string, unknown>; updated_at: Date }>;
  if (!integration) throw notFound();
  if (integration.settings.access === 'token') {
    const expected = feedToken(servicesOf(ctx).config.appSecret, integration.id);
    if (token === undefined || !constantTimeEqual(token, expected)) throw notFound();
  }
  const [state] = (await ctx.manager.query(
    `SELECT (SELECT count(*) FROM products WHERE store_id = $1 AND status = 'PUBLISHED')::text AS products,
            -- Whole rows of what the feed shows (a sale changes a variant's stock, not the product's updated_at).
            ((SELECT coalesce(bit_xor(hashtextextended(p::text, 0)), 0) FROM products p WHERE p.store_id = $1 AND p.status = 'PUBLISHED')
             # (SELECT coalesce(bit_xor(hashtextextended(v::text, 0)), 0) FROM product_variants v JOIN products p ON p.id = v.product_id
                 WHERE p.store_id = $1 AND p.status = 'PUBLISHED')
             # (SELECT coalesce(bit_xor(hashtextextended(i::text, 0)), 0) FROM product_images i JOIN products p ON p.id = i.product_id
                 WHERE p.store_id = $1 AND p.status = 'PUBLISHED'))::text AS digest,
            (SELECT max(updated_at) FROM products WHERE store_id = $1 AND status = 'PUBLISHED') AS products_at,
            (SELECT max(updated_at) FROM brands WHERE store_id = $1) AS brands_at,
            (SELECT count(*) FROM brands WHERE store_id = $1)::text AS brands`,
    [store.id],
  )) as Array<{ products: string; digest: string; products_at: Date | null; brands_at: Date | null; brands: string }>;
  const times = [integration.updated_at, state!.products_at, state!.brands_at].filter((d): d is Date => d instanceof Date);
  const lastModified = new Date(Math.max(...times.map((d) => d.getTime())));
  const fingerprint = [
    FORMAT_VERSION,
    store.name,
    store.price_visibility,
    JSON.stringify(integration.settings),
    integration.updated_at.toISOString(),
    state!.products,
    state!.digest,
    state!.products_at?.toISOString() ?? '',
    state!.brands,
    state!.brands_at?.toISOString() ?? '',
  ].join('|');
  return {
    storeId: store.id,
    storeName: store.name,
    // The feed is read by machines without a shopper's token: prices only where everyone sees them.
    pricesShown: store.price_visibility === 'EVERYONE',
    includeOutOfStock: integration.settings.includeOutOfStock !== false,
    fingerprint,
    lastModified,
  };
}

async function readBatch(ctx: RequestContext, target: FeedTarget, afterId: string | null): Promise<FeedRow[]> {
  return (await ctx.manager.query(
    `SELECT p.id, p.title, p.slug, p.description_html, p.price, p.compare_at_price, p.currency, p.vendor_name,
            b.name AS brand, img.url AS image_url, coalesce(v.in_stock, false) AS in_stock, fv.barcode, fv.sku
       FROM products p
       LEFT JOIN brands b ON b.id = p.brand_id AND b.store_id = p.store_id AND b.is_active
       LEFT JOIN LATERAL (SELECT url FROM product_images WHERE product_id = p.id ORDER BY position, id LIMIT 1) img ON true
       LEFT JOIN LATERAL (SELECT bool_or(stock > 0) AS in_stock FROM product_variants WHERE product_id = p.id) v ON true
       LEFT JOIN LATERAL (SELECT barcode, sku FROM product_variants WHERE product_id = p.id ORDER BY position, id LIMIT 1) fv ON true
      WHERE p.store_id = $1 AND p.status = 'PUBLISHED' AND ($2::uuid IS NULL OR p.id > $2::uuid)
      ORDER BY p.id LIMIT $3`,
    [target.storeId, afterId, BATCH],
  )) as FeedRow[];
}

// ---- the items ---------------------------------------------------------------------------------

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ' };

/** Plain text of a product description: tags removed, the common entities read, white space collapsed. */
function plainText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|apos|#39|nbsp);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim();
}

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text);

/** A decimal amount as Merchant Center reads it: at least two decimals, trailing zeros beyond them dropped, then the currency. */
function amount(value: string, currency: string): string {
  const [whole, fraction = ''] = value.split('.');
  const decimals = fraction.replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${decimals} ${currency.trim()}`;
}

/** GTIN-8, -12, -13 or -14 (digits only); anything else is not sent as a GTIN. */
const GTIN = /^(\d{8}|\d{12,14})$/;

function absoluteUrl(url: string | null, publicBaseUrl: string): string | null {
  if (!url) return null;
  if (/^https?:\/\//i.test(url)) return url;
  return url.startsWith('/') ? `${publicBaseUrl}${url}` : null;
}

function feedItem(row: FeedRow, target: FeedTarget, publicBaseUrl: string): FeedItem {
  const discounted = row.compare_at_price !== null && Number(row.compare_at_price) > Number(row.price);
  return {
    id: row.id,
    title: clip(row.title, TITLE_MAX),
    description: clip(plainText(row.description_html) || row.title, DESCRIPTION_MAX),
    link: `${publicBaseUrl}/shop/${target.storeId}/products/${encodeURIComponent(row.slug)}`,
    image_link: absoluteUrl(row.image_url, publicBaseUrl),
    availability: row.in_stock ? 'in_stock' : 'out_of_stock',
    price: target.pricesShown ? amount(discounted ? row.compare_at_price! : row.price, row.currency) : null,
    sale_price: target.pricesShown && discounted ? amount(row.price, row.currency) : null,
    condition: 'new',
    brand: row.brand ?? row.vendor_name,
    gtin: row.barcode && GTIN.test(row.barcode) ? row.barcode : null,
    mpn: row.sku ? clip(row.sku, 70) : null,
  };
}

// ---- XML and CSV -------------------------------------------------------------------------------

/** Characters XML 1.0 cannot carry at all (control characters but tab and line ends, U+FFFE, U+FFFF) are dropped. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function xmlText(value: string): string {
  return value
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const ITEM_FIELDS = [
  'id',
  'title',
  'description',
  'link',
  'image_link',
  'availability',
  'price',
  'sale_price',
  'condition',
  'brand',
  'gtin',
  'mpn',
] as const;

function xmlItem(item: FeedItem): string {
  const lines = ITEM_FIELDS.filter((field) => item[field] !== null).map((field) => `<g:${field}>${xmlText(item[field]!)}</g:${field}>`);
  // Without a GTIN or MPN Merchant Center asks the feed to say the product has no identifier.
  if (!item.gtin && !item.mpn) lines.push('<g:identifier_exists>no</g:identifier_exists>');
  return `<item>\n${lines.join('\n')}\n</item>\n`;
}

const CSV_COLUMNS: CsvColumn<FeedItem>[] = ITEM_FIELDS.map((field) => ({ header: field, value: (item: FeedItem) => item[field] }));

function documentStart(format: FeedFormat, target: FeedTarget, publicBaseUrl: string): string {
  if (format === 'csv') return '';
  const name = xmlText(target.storeName);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">\n<channel>\n' +
    `<title>${name}</title>\n<link>${xmlText(`${publicBaseUrl}/shop/${target.storeId}`)}</link>\n` +
    `<description>${xmlText(`Products of ${target.storeName}`)}</description>\n`
  );
}

/**
 * Whether the request's If-None-Match names the feed's current ETag. If-Modified-Since alone is not
 * honoured: a sale changes a variant's stock without a modification time the feed could date.
 */
function notModified(headers: { ifNoneMatch?: string }, etag: string): boolean {
  if (!headers.ifNoneMatch) return false;
  return headers.ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*');
}

/**
 * The feed of integration `integrationId` of store `storeId` in `format`; 404 product_feed_not_found
 * unless the store is open and the integration an enabled product feed (with the right token when
 * its access is token).
 */
export async function openProductFeed(
  ctx: RequestContext,
  request: { storeId: string; integrationId: string; token?: string; format: FeedFormat; ifNoneMatch?: string },
): Promise<OpenedFeed> {
  const target = await feedTarget(ctx, request.storeId, request.integrationId, request.token);
  const etag = `"${createHash('sha256').update(`${request.format}|${target.fingerprint}`).digest('base64url').slice(0, 32)}"`;
  if (notModified(request, etag)) return { etag, lastModified: target.lastModified };
  const { publicBaseUrl } = servicesOf(ctx).config;
  const keep = (row: FeedRow) => target.includeOutOfStock || row.in_stock;
  const render = (rows: FeedRow[], first: boolean): string => {
    const items = rows.filter(keep).map((row) => feedItem(row, target, publicBaseUrl));
    if (request.format === 'csv') return first || items.length > 0 ? toCsv(items, CSV_COLUMNS, { header: first }) : '';
    return items.map(xmlItem).join('');
  };
  const first = await readBatch(ctx, target, null);
  async function* chunks(): AsyncGenerator<string> {
    yield documentStart(request.format, target, publicBaseUrl) + render(first, true);
    let rows = first;
    try {
      while (rows.length === BATCH) {
        rows = await readBatch(ctx, target, rows[rows.length - 1]!.id);
        const text = render(rows, false);
        if (text) yield text;
      }
    } catch (error) {
      ctx.services?.logger.error({ err: error, requestId: ctx.requestId }, 'product feed failed while streaming');
      throw error;
    }
    if (request.format === 'xml') yield '</channel>\n</rss>\n';
  }
  return { etag, lastModified: target.lastModified, body: Readable.from(chunks()) };
}
