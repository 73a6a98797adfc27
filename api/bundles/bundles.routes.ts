/** Product bundles of a store (docs/catalog.md, "The catalog (merchant side)"). */
import { defineRoutes, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import {
  BundleListResponse,
  BundlePriceResponse,
  BundleResponse,
  ComputeBundlePriceDto,
  CreateBundleDto,
  UpdateBundleDto,
} from './bundles.schemas';
import {
  bundlesByProduct,
  computeBundlePrice,
  createBundle,
  deleteBundle,
  getBundle,
  listBundles,
  updateBundle,
  type ComputeBundlePriceInput,
  type CreateBundleInput,
  type UpdateBundleInput,
} from './bundles.service';

type Params = Record<string, string>;

const readers =
  "Any member of the tenant, or an API key of the store with bundles:read. Another tenant's store, bundle or product answers 404.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with bundles:write; an archived store answers 409 store_archived. Another tenant's store or bundle answers 404. Each change writes one audit entry and one outbox row (topic bundle.created, bundle.updated or bundle.deleted); a request that changes nothing writes neither.";
const money =
  "Money is computed exactly (decimal arithmetic, never floating point): unit prices are the variant's own price, else the product's (as stored, up to 4 decimals); each line total (unitPrice × quantity) is rounded half up to 2 decimals and itemsTotal is their sum; a FIXED_PRICE bundle costs its price (× count), rounded half up to 2 decimals; a PERCENT_OFF bundle costs itemsTotal × (1 − percentOff / 100) rounded half up to 2 decimals (3 × 9.99 at 15% off: 29.97 → 25.4745 → 25.47).";
const rules =
  'Items: 1 to 50 lines of a product of the store (400 invalid_product, field body.items[N].productId) or one variant of it (400 invalid_variant when the variant is not of that product); a (productId, variantId) pair at most once; quantity 1 to 1000. productId, optional, is the product of type BUNDLE that sells the bundle (400 invalid_product otherwise; 409 product_has_bundle when it already sells another); it cannot be an item. A slug used by another bundle of the store (case-insensitively) answers 409 slug_taken. Deleting a product removes its lines from every bundle (and detaches it from a bundle it sells); deleting a variant removes its lines.';

export const bundleRoutes = defineRoutes({ tag: 'bundles', auth: 'merchant' }, [
  {
    operationId: 'bundles.list',
    method: 'GET',
    path: '/bundles',
    summary: 'Bundles of a store',
    description: `${readers} Every bundle of the store, active or not, with its lines, ordered by name; not paged.`,
    query: { storeId: storeId() },
    response: BundleListResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => listBundles(req.context, req.query.storeId),
  },
  {
    operationId: 'bundles.create',
    method: 'POST',
    path: '/bundles',
    summary: 'Create a bundle',
    description: `${writers} ${rules} Without a slug one is derived from the name. Answers the bundle as GET /bundles/{id} does. ${money}`,
    body: CreateBundleDto,
    response: BundleResponse,
    status: 201,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, CreateBundleInput>) => createBundle(req.context, req.body),
  },
  {
    operationId: 'bundles.byProduct',
    method: 'GET',
    path: '/bundles/by-product/{productId}',
    summary: 'Bundles that contain a product',
    description: `${readers} The bundles of the product's store that contain the product (with or without a variant) or are sold as it, ordered by name. An unknown product answers 404 product_not_found.`,
    response: BundleListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => bundlesByProduct(req.context, req.params.productId),
  },
  {
    operationId: 'bundles.get',
    method: 'GET',
    path: '/bundles/{id}',
    summary: 'One bundle with its items',
    description: `${readers} The bundle with its lines (product title, variant SKU, unit price) and its price for one bundle: itemsTotal, bundlePrice, savings (itemsTotal − bundlePrice) and savingsPercent (savings / itemsTotal × 100, rounded half up to 2 decimals), all in the store currency; these four are null when an item is priced in another currency. ${money}`,
    response: BundleResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getBundle(req.context, req.params.id),
  },
  {
    operationId: 'bundles.update',
    method: 'PATCH',
    path: '/bundles/{id}',
    summary: 'Update a bundle',
    description: `${writers} Changes only the fields given; items, when given, replace the whole list; productId null detaches the selling product. ${rules} Answers the bundle as GET /bundles/{id} does.`,
    body: UpdateBundleDto,
    response: BundleResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, UpdateBundleInput>) => updateBundle(req.context, req.params.id, req.body),
  },
  {
    operationId: 'bundles.delete',
    method: 'DELETE',
    path: '/bundles/{id}',
    summary: 'Delete a bundle',
    description: `${writers} Deletes the bundle and its lines; the products stay (a BUNDLE product that sold it stays as it is).`,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteBundle(req.context, req.params.id),
  },
  {
    operationId: 'bundles.computePrice',
    method: 'POST',
    path: '/bundles/compute',
    summary: 'Compute the price of a bundle',
    description: `Any member of the tenant, or an API key of the store with bundles:write (a POST). Another tenant's bundle answers 404. Prices count bundles (default 1) with the bundle's quantities, or those given in quantities for the lines they name (400 item_not_in_bundle for a line that is not in the bundle). Each line's quantity is its quantity per bundle × count. Every item must be priced in the store currency, else 409 mixed_currency. Answers the lines, itemsTotal, bundlePrice, discount (itemsTotal − bundlePrice; negative when a fixed price exceeds the items' sum) and total (what is paid: bundlePrice). Reads only: writes no audit entry or outbox row. ${money}`,
    body: ComputeBundlePriceDto,
    response: BundlePriceResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, ComputeBundlePriceInput>) => computeBundlePrice(req.context, req.body),
  },
]);
