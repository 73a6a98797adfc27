/** Orders (docs/commerce.md, "Orders"): placed with a sandbox or production token. */
import { defineRoutes, type RouteRequest } from '../http/route';
import { uuid } from '../http/schema-types';
import { CreateOrderDto, listOrdersQuery, OrderListResponse, OrderResponse } from './orders.schemas';
import { cancelOrder, createOrder, getOrder, listOrders, type CreateOrderInput, type ListOrdersInput } from './orders.service';
import { CANCEL_DESCRIPTION, CREATE_DESCRIPTION, GET_DESCRIPTION, LIST_DESCRIPTION } from './orders.descriptions';

type Params = Record<string, string>;

/** The operations of this table that the specification does not list (extensions; their descriptions say so). */
export const orderExtensionOperationIds = ['orders.list', 'orders.get', 'orders.cancel'] as const;

export const orderRoutes = defineRoutes({ tag: 'orders', auth: 'merchant' }, [
  {
    operationId: 'orders.create',
    method: 'POST',
    path: '/orders',
    summary: 'Place an order',
    description: CREATE_DESCRIPTION,
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
    description: LIST_DESCRIPTION,
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
    description: GET_DESCRIPTION,
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
    description: CANCEL_DESCRIPTION,
    params: { id: uuid().required() },
    response: OrderResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => cancelOrder(req.context, req.params.id!),
  },
]);
