/** DTOs of orders. The request fields are those the specification names for creating an order. */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { cursor, dateTime, oneOf, positiveInt, storeId, text, uuid } from '../http/schema-types';

export const ORDER_MAX_LINES = 100;
export const ORDER_MAX_QUANTITY = 10_000;
export const ORDER_STATUSES = ['PLACED', 'CANCELLED'] as const;

const storeIdField = (): Joi.StringSchema =>
  uuid().description(
    "The store of the order. Optional: a store API key or sandbox token acts on its own store (another storeId answers 404 store_not_found); a signed-in member acts on the store named, else on the tenant's default store (the store with isDefault; 400 when the tenant has none).",
  );

/**
 * Which fields are required is not shown by the specification; an order cannot be placed without a
 * customer, at least one line and a destination, so all three are required. At most 100 lines.
 */
export const CreateOrderDto = typedDto(
  'CreateOrderDto',
  t.object({
    storeId: t.string(storeIdField()),
    customerId: t.string(uuid().description('A customer of the store (404 customer_not_found otherwise).')).required(),
    items: t
      .array(
        t.object({
          variantId: t.string(uuid().description('A variant of a product of the store (404 variant_not_found otherwise).')).required(),
          quantity: t.number(Joi.number().integer().min(1).max(ORDER_MAX_QUANTITY).description('1 to 10000.')).required(),
        }),
        Joi.array()
          .min(1)
          .max(ORDER_MAX_LINES)
          .description('1 to 100 lines; lines naming the same variant are merged into one line (quantities added).'),
      )
      .required(),
    shippingAddress: t.object({ city: t.string(text(1, 120)).required(), district: t.string(text(1, 120)).required() }).required(),
  }),
);

export const OrderItemView = Joi.object({
  id: uuid().required(),
  productId: uuid().allow(null).required().description('Null once the product is deleted.'),
  variantId: uuid().allow(null).required().description('Null once the variant is deleted.'),
  title: Joi.string().required().description('The product title when the order was placed.'),
  sku: Joi.string().allow(null).required(),
  options: Joi.object().pattern(Joi.string(), Joi.string()).required(),
  quantity: Joi.number().integer().min(1).required(),
  unitPrice: Joi.number().min(0).required().description("The variant's own price, else the product's, when the order was placed."),
  lineTotal: Joi.number().min(0).required().description('unitPrice × quantity, exact.'),
}).label('OrderItem');

export const OrderView = Joi.object({
  id: uuid().required(),
  storeId: uuid().required(),
  customerId: uuid().required(),
  status: oneOf(ORDER_STATUSES).required().description('PLACED, or CANCELLED after the cancel operation.'),
  currency: Joi.string().length(3).required(),
  subtotal: Joi.number().min(0).required().description('Sum of the line totals.'),
  total: Joi.number()
    .min(0)
    .required()
    .description(
      'The subtotal rounded half up to 2 decimals (no shipping or tax is charged by this operation); an order of the storefront checkout also carries its shipping charge: subtotal + shipping, rounded half up to 2 decimals.',
    ),
  itemCount: Joi.number().integer().min(1).required().description('Sum of the quantities.'),
  shippingAddress: Joi.object({ city: Joi.string().required(), district: Joi.string().required() }).required(),
  items: Joi.array().items(OrderItemView).required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
  cancelledAt: dateTime().allow(null).required(),
}).label('Order');

export const OrderResponse = dto('OrderResponse', OrderView);

export const OrderListResponse = dto(
  'OrderListResponse',
  Joi.object({
    items: Joi.array().items(OrderView).required().description('Newest first (createdAt, then id, descending).'),
    nextCursor: Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);

export const listOrdersQuery = {
  storeId: storeId(),
  customerId: uuid().description('Only the orders of this customer.'),
  status: oneOf(ORDER_STATUSES).description('Only orders in this status.'),
  limit: positiveInt(100).default(20).description('1 to 100, default 20.'),
  cursor: cursor(),
};
