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
import {
  CREATE_DESCRIPTION,
  DELETE_DESCRIPTION,
  EXPORT_DESCRIPTION,
  listDescription,
  PUBLIC_QUOTE_DESCRIPTION,
  UPDATE_DESCRIPTION,
} from './shipping-rates.descriptions';

type Params = Record<string, string>;

export const shippingRateRoutes = defineRoutes({ tag: 'shipping-rates', auth: 'merchant' }, [
  {
    operationId: 'shippingRates.list',
    method: 'GET',
    path: '/shipping-rates',
    summary: 'Shipping rates of a store',
    description: listDescription(pagedPlainList(50, 200)),
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
    description: CREATE_DESCRIPTION,
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
    description: EXPORT_DESCRIPTION,
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
    description: UPDATE_DESCRIPTION,
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
    description: DELETE_DESCRIPTION,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteShippingRate(req.context, req.params.id),
  },
  {
    operationId: 'shippingRates.publicQuote',
    method: 'POST',
    path: '/shipping-rates/public/stores/{storeId}/quote',
    summary: 'Quote the shipping options and costs for a cart (storefront)',
    description: PUBLIC_QUOTE_DESCRIPTION,
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
