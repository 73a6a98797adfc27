/** DTOs and responses of webhook forwarding (an extension): the pull feed of a development endpoint and its outcomes. */
import Joi from 'joi';
import { dto } from '../http/route';
import { int } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';

/** The longest a feed read waits for a delivery (seconds), under the usual proxy timeouts. */
export const FORWARDING_WAIT_MAX_SECONDS = 25;

export const forwardingFeedQuery = {
  waitSeconds: int(0, FORWARDING_WAIT_MAX_SECONDS)
    .default(0)
    .description(`Long poll: wait up to this many seconds (0 to ${FORWARDING_WAIT_MAX_SECONDS}) for a delivery when none is waiting.`),
  limit: int(1, 50).default(20).description('At most this many deliveries (1 to 50), oldest first.'),
};

export const ForwardingOutcomeDto = typedDto(
  'ForwardingOutcomeDto',
  t.object({
    statusCode: t
      .number(int(100, 599).description("The local handler's HTTP status; null when it could not be reached."))
      .nullable()
      .required(),
    error: t.string(Joi.string().max(1000).description('Why forwarding failed, at most 1000 characters.')).nullable(),
    durationMs: t.number(int(0, 600_000).description('How long the local request took.')).default(0),
  }),
);

const ForwardedDelivery = Joi.object({
  deliveryId: Joi.string().required(),
  topic: Joi.string().required(),
  createdAt: Joi.string().isoDate().required(),
  attempts: Joi.number().integer().required().description('Outcomes reported so far (0 the first time).'),
  body: Joi.string()
    .required()
    .description('The raw body exactly as the dispatcher would send it (the delivery envelope): POST these bytes unchanged.'),
  headers: Joi.object({
    'Content-Type': Joi.string().valid('application/json').required(),
    'X-Service-Topic': Joi.string().required(),
    'X-Service-Delivery-Id': Joi.string().required(),
    'X-Service-Signature': Joi.string().required().description('Signed now with the endpoint secret, as the dispatcher signs an attempt.'),
  })
    .required()
    .label('ForwardedDeliveryHeaders'),
}).label('ForwardedDelivery');

export const ForwardingFeedResponse = dto(
  'WebhookForwardingFeedResponse',
  Joi.object({
    endpointId: Joi.string().required(),
    items: Joi.array().items(ForwardedDelivery).required().description('PENDING deliveries of the endpoint, oldest first.'),
  }),
);

export const ForwardingOutcomeResponse = dto(
  'WebhookForwardingOutcomeResponse',
  Joi.object({
    deliveryId: Joi.string().required(),
    status: Joi.string().valid('DELIVERED', 'DEAD').required(),
    attempts: Joi.number().integer().required(),
  }),
);
