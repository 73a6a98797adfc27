/** Shipping rates of a store and shipping quotes (docs/commerce.md, "Shipping rates"). */
import { csvDownload } from '../http/csv';
import { defineRoutes, listedRequired, pagedPlainList, type RouteRequest } from '../http/route';
import { cursor, positiveInt, storeId } from '../http/schema-types';
import {
  CreateShippingRateDto,
  QuoteShippingDto,
  ShippingQuoteResponse,
  ShippingRateListResponse,
  ShippingRateResponse,
  ShippingRatesCsv,
  UpdateShippingRateDto,
} from './shipping-rates.schemas';
import { quoteShipping, type QuoteAddress, type QuoteCart } from './shipping-quote';
import { pricesShown } from '../../domain/price-visibility';
import {
  createShippingRate,
  deleteShippingRate,
  exportShippingRates,
  listShippingRates,
  updateShippingRate,
  type CreateShippingRateInput,
  type ListShippingRatesQuery,
  type UpdateShippingRateInput,
} from './shipping-rates.service';

type Params = Record<string, string>;

const readers =
  "Any member of the tenant, or an API key of the store with shipping-rates:read. Another tenant's store answers 404 store_not_found.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with shipping-rates:write; an archived store answers 409 store_archived. Another tenant's store or rate answers 404. Each write records one audit entry and one outbox row (queue index, aggregate shipping_rate); a PATCH that changes nothing records neither.";
const quoteRules =
  "Destinations: a rate covers a district of a city (DISTRICT), a whole city (CITY), or every address no other rate's place covers (EVERYWHERE_ELSE, the fallback); names compare case- and accent-insensitively with whitespace collapsed. Bands are half-open: minWeightGrams ≤ cart weight < maxWeightGrams and minOrderValue ≤ order value < maxOrderValue, a null bound being open. An order value at or above freeShippingThreshold ships free with that rate (price 0, free true). In a quote the most specific destination level that has an applicable rate wins and hides the more general ones (a district's rates replace the city's, the city's replace the fallback); when the specific level has nothing for this cart (e.g. out of its weight bands), the next level's options are offered. Inactive rates are never quoted.";

export const shippingRateRoutes = defineRoutes({ tag: 'shipping-rates', auth: 'merchant' }, [
  {
    operationId: 'shippingRates.list',
    method: 'GET',
    path: '/shipping-rates',
    summary: 'Shipping rates of a store',
    description: `${readers} Every rate, active or not, in creation order. ${pagedPlainList(50, 200)} Neither cursor nor limit is typed by the specification.`,
    query: { storeId: storeId(), cursor: listedRequired(cursor()), limit: listedRequired(positiveInt(200).default(50)) },
    response: ShippingRateListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listShippingRates(req.context, req.query as ListShippingRatesQuery),
  },
  {
    operationId: 'shippingRates.create',
    method: 'POST',
    path: '/shipping-rates',
    summary: 'Create a shipping rate',
    description: `${writers} The rate is priced in the store's currency. ${quoteRules}`,
    body: CreateShippingRateDto,
    response: ShippingRateResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, CreateShippingRateInput>) => createShippingRate(req.context, req.body),
  },
  {
    operationId: 'shippingRates.export',
    method: 'GET',
    path: '/shipping-rates/export',
    summary: 'Export the shipping rates of a store as CSV',
    description: `${readers} A text/csv attachment (shipping-rates-<storeId>.csv) of every rate, active or not.`,
    query: { storeId: storeId() },
    response: ShippingRatesCsv,
    status: 200,
    handler: csvDownload((ctx, query: Params) => exportShippingRates(ctx, { storeId: query.storeId! })),
  },
  {
    operationId: 'shippingRates.update',
    method: 'PATCH',
    path: '/shipping-rates/{id}',
    summary: 'Update a shipping rate',
    description: `${writers} Changes only the fields given; null clears an optional field. ${quoteRules}`,
    body: UpdateShippingRateDto,
    response: ShippingRateResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, UpdateShippingRateInput>) => updateShippingRate(req.context, req.params.id, req.body),
  },
  {
    operationId: 'shippingRates.delete',
    method: 'DELETE',
    path: '/shipping-rates/{id}',
    summary: 'Delete a shipping rate',
    description: writers,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteShippingRate(req.context, req.params.id),
  },
  {
    operationId: 'shippingRates.publicQuote',
    method: 'POST',
    path: '/shipping-rates/public/stores/{storeId}/quote',
    summary: 'Quote the shipping options and costs for a cart (storefront)',
    description: `No token. Every shipping option of the store for the cart and address, cheapest first (then the shortest estimate). Items name published products or variants of the store (400 invalid_item otherwise, with the item's path); the cart weight comes from the catalog (the variant's weight, else its product's; an item's weightGrams only when the catalog has none; 0 g otherwise) and the order value is orderValue when given, else the catalog prices × quantities. When the store does not show prices to this visitor (price visibility HIDDEN, or SIGNED_IN without a valid access token), catalog prices are never used: the order value is the orderValue given, and without one the quote is made as for an order value of 0 (value bands starting above 0 and free-shipping thresholds above 0 do not apply) and the answer has no orderValue; pricesShown says which applied. An unknown or archived store answers 404 store_not_found. No option (an empty list) means the store does not ship this cart there. ${quoteRules} Orders price their shipping with the same function.`,
    auth: 'public',
    body: QuoteShippingDto,
    response: ShippingQuoteResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, QuoteCart & { address: QuoteAddress }>) =>
      quoteShipping(req.context.manager, req.params.storeId, req.body, req.body.address, {
        pricesShown: (visibility) => pricesShown(req.context, visibility),
      }),
  },
]);
