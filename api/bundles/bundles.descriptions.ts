/** The long descriptions of the bundles route table (bundles.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with bundles:read. Another tenant's store, bundle or product answers 404.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with bundles:write; an archived store answers 409 store_archived. Another tenant's store or bundle answers 404. Each change writes one audit entry and one outbox row (topic bundle.created, bundle.updated or bundle.deleted); a request that changes nothing writes neither.";

export const money =
  "Money is computed exactly (decimal arithmetic, never floating point): unit prices are the variant's own price, else the product's (as stored, up to 4 decimals); each line total (unitPrice × quantity) is rounded half up to 2 decimals and itemsTotal is their sum; a FIXED_PRICE bundle costs its price (× count), rounded half up to 2 decimals; a PERCENT_OFF bundle costs itemsTotal × (1 − percentOff / 100) rounded half up to 2 decimals (3 × 9.99 at 15% off: 29.97 → 25.4745 → 25.47).";

export const rules =
  'Items: 1 to 50 lines of a product of the store (400 invalid_product, field body.items[N].productId) or one variant of it (400 invalid_variant when the variant is not of that product); a (productId, variantId) pair at most once; quantity 1 to 1000. productId, optional, is the product of type BUNDLE that sells the bundle (400 invalid_product otherwise; 409 product_has_bundle when it already sells another); it cannot be an item. A slug used by another bundle of the store (case-insensitively) answers 409 slug_taken. Deleting a product removes its lines from every bundle (and detaches it from a bundle it sells); deleting a variant removes its lines.';

export const LIST_DESCRIPTION = `${readers} Every bundle of the store, active or not, with its lines, ordered by name; not paged.`;

export const CREATE_DESCRIPTION = `${writers} ${rules} Without a slug one is derived from the name. Answers the bundle as GET /bundles/{id} does. ${money}`;

export const BY_PRODUCT_DESCRIPTION = `${readers} The bundles of the product's store that contain the product (with or without a variant) or are sold as it, ordered by name. An unknown product answers 404 product_not_found.`;

export const GET_DESCRIPTION = `${readers} The bundle with its lines (product title, variant SKU, unit price) and its price for one bundle: itemsTotal, bundlePrice, savings (itemsTotal − bundlePrice) and savingsPercent (savings / itemsTotal × 100, rounded half up to 2 decimals), all in the store currency; these four are null when an item is priced in another currency. ${money}`;

export const UPDATE_DESCRIPTION = `${writers} Changes only the fields given; items, when given, replace the whole list; productId null detaches the selling product. ${rules} Answers the bundle as GET /bundles/{id} does.`;

export const DELETE_DESCRIPTION = `${writers} Deletes the bundle and its lines; the products stay (a BUNDLE product that sold it stays as it is).`;

export const COMPUTE_PRICE_DESCRIPTION = `Any member of the tenant, or an API key of the store with bundles:write (a POST). Another tenant's bundle answers 404. Prices count bundles (default 1) with the bundle's quantities, or those given in quantities for the lines they name (400 item_not_in_bundle for a line that is not in the bundle). Each line's quantity is its quantity per bundle × count. Every item must be priced in the store currency, else 409 mixed_currency. Answers the lines, itemsTotal, bundlePrice, discount (itemsTotal − bundlePrice; negative when a fixed price exceeds the items' sum) and total (what is paid: bundlePrice). Reads only: writes no audit entry or outbox row. ${money}`;
