/** Orders (docs/commerce.md, "Orders"): placed with a sandbox or production token. */
import { defineRoutes, type RouteRequest } from '../http/route';
import { uuid } from '../http/schema-types';
import { CreateOrderDto, listOrdersQuery, OrderListResponse, OrderResponse } from './orders.schemas';
import { cancelOrder, createOrder, getOrder, listOrders, type CreateOrderInput, type ListOrdersInput } from './orders.service';

type Params = Record<string, string>;

/** The operations of this table that the specification does not list (extensions; their descriptions say so). */
export const orderExtensionOperationIds = ['orders.list', 'orders.get', 'orders.cancel'] as const;

const callers =
  "Any member of the tenant, or a store API key or sandbox token with the scope orders:write (orders:read for reads) acting on its own store. Another tenant's store, order, customer or variant answers 404.";

export const orderRoutes = defineRoutes({ tag: 'orders', auth: 'merchant' }, [
  {
    operationId: 'orders.create',
    method: 'POST',
    path: '/orders',
    summary: 'Place an order',
    description: `Listed as POST /api/v1/orders. The success status is not stated by the specification: 201 Created with the order. ${callers} storeId is optional: a store API key or sandbox token places the order in its own store (a storeId naming another store answers 404 store_not_found); a member's token places it in the store named, else in the tenant's default store (the store with isDefault: the first store created, or the one made default since), and answers 400 when the tenant has no default store. The customer must be a customer of the store (404 customer_not_found) and every variant a variant of one of its products (404 variant_not_found, naming the lines); an archived product answers 409 product_unavailable; products priced in different currencies 409 mixed_currencies. Stock is checked and reserved atomically: when any line asks for more than its variant holds the answer is 409 insufficient_stock (one error per short line) and no stock is reserved. Lines of the same variant are merged. Each line is priced with the variant's own price, else the product's; subtotal and total are exact decimals (total rounded half up to 2 decimals). The products' sales counts (the best_selling sort) grow by the quantities. Emits order.placed with orderId, total, currency, customerId, storeId, items and shippingAddress. An archived store answers 409 store_archived.`,
    body: CreateOrderDto,
    response: OrderResponse,
    status: 201,
    handler: (req: RouteRequest<Params, unknown, CreateOrderInput>) => createOrder(req.context, req.body),
  },
  {
    operationId: 'orders.list',
    method: 'GET',
    path: '/orders',
    summary: 'List the orders of a store (extension)',
    description: `Extension: not in the specification's operation list; a client reading its orders needs it. ${callers} storeId is required here as in every store list (an API key names its own store). Newest first, cursor-paginated; filters by customer and status.`,
    query: listOrdersQuery,
    response: OrderListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listOrders(req.context, req.query as ListOrdersInput),
  },
  {
    operationId: 'orders.get',
    method: 'GET',
    path: '/orders/{id}',
    summary: 'Read an order (extension)',
    description: `Extension: not in the specification's operation list. ${callers} 404 order_not_found for an unknown order or another tenant's.`,
    params: { id: uuid().required() },
    response: OrderResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getOrder(req.context, req.params.id!),
  },
  {
    operationId: 'orders.cancel',
    method: 'POST',
    path: '/orders/{id}/cancel',
    summary: 'Cancel an order (extension)',
    description: `Extension: not in the specification's operation list; it emits the webhook topic order.cancelled. ${callers} The stock of every line goes back to its variant (lines whose variant was deleted have nothing to return to), the quantities are taken off the products' sales counts (a cancelled order is not a sale), status becomes CANCELLED and order.cancelled is emitted. Idempotent: cancelling a cancelled order answers 200 with the order unchanged and emits nothing. An archived store answers 409 store_archived.`,
    params: { id: uuid().required() },
    response: OrderResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => cancelOrder(req.context, req.params.id!),
  },
]);
