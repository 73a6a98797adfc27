/** Orders (document 2, "Sandbox and import"): placed with a sandbox or production token. */
import { defineRoutes } from '../http/route';
import { CreateOrderDto } from './orders.schemas';

export const orderRoutes = defineRoutes({ tag: 'orders', auth: 'merchant' }, [
  {
    operationId: 'orders.create',
    method: 'POST',
    path: '/orders',
    summary: 'Place an order',
    description: 'Listed as POST /api/v1/orders. The success status is not stated by the specification: 201 Created.',
    body: CreateOrderDto,
    status: 201,
  },
]);
