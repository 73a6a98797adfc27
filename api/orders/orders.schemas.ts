/** DTOs of orders. The request fields are document 1's "Order creation request". */
import Joi from 'joi';
import { dto } from '../http/route';
import { text, uuid } from '../http/schema-types';

/**
 * Which fields are required is not shown by the specification; an order cannot be placed without a
 * customer, at least one line and a destination, so all three are required. At most 100 lines.
 */
export const CreateOrderDto = dto(
  'CreateOrderDto',
  Joi.object({
    customerId: uuid().required(),
    items: Joi.array()
      .items(Joi.object({ variantId: uuid().required(), quantity: Joi.number().integer().min(1).max(10_000).required() }))
      .min(1)
      .max(100)
      .required(),
    shippingAddress: Joi.object({ city: text(1, 120).required(), district: text(1, 120).required() }).required(),
  }),
);
