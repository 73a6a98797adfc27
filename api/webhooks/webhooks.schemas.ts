/** DTOs of the webhooks area: the tester (a listed operation) and subscription management (extensions). */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { bool, httpUrl, oneOf, uuid } from '../http/schema-types';
import { WEBHOOK_TOPICS } from './events';

export { WEBHOOK_TOPICS, type WebhookTopic } from './events';

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'DEAD'] as const;

export const WebhookTestDto = typedDto(
  'WebhookTestDto',
  t.object({
    topic: t.oneOf(WEBHOOK_TOPICS, (s) => s.description('One of the 33 webhook topics (see the enum).')).required(),
    endpoint: t
      .string(
        httpUrl().description(
          'The receiver URL (http or https, at most 2048 characters; no credentials; a private or loopback IP literal is refused).',
        ),
      )
      .required(),
  }),
);

const envelope = Joi.object({
  topic: Joi.string().required(),
  deliveryId: Joi.string().required(),
  tenantId: Joi.string().required(),
  occurredAt: Joi.string().isoDate().required(),
  data: Joi.object().unknown(true).required(),
})
  .label('WebhookEnvelope')
  .description('The webhook delivery envelope: the body every attempt sends.');

export const WebhookTestResponse = dto(
  'WebhookTestResponse',
  Joi.object({
    deliveryId: Joi.string()
      .required()
      .description('X-Service-Delivery-Id of every attempt; GET /webhooks/deliveries/{id} shows its attempts.'),
    eventId: Joi.string().required(),
    topic: oneOf(WEBHOOK_TOPICS).required(),
    endpoint: Joi.string().required().description('The URL as it is called (normalised).'),
    endpointId: Joi.string()
      .allow(null)
      .required()
      .description('The enabled endpoint of the tenant with this URL, whose secret signs the delivery; null otherwise.'),
    signedWith: Joi.string().valid('ENDPOINT_SECRET', 'TEST_SECRET').required(),
    testSecret: Joi.string()
      .allow(null)
      .required()
      .description(
        "The tenant's test signing secret when signedWith is TEST_SECRET (the same for every test of the tenant); null otherwise.",
      ),
    payload: envelope.required(),
  }),
);

const topicList = t.array(
  t.oneOf(['*', ...WEBHOOK_TOPICS] as const),
  Joi.array()
    .min(1)
    .max(WEBHOOK_TOPICS.length)
    .unique()
    .description("Topics the endpoint receives: 1 to 33 distinct topics of the catalog, or ['*'] for all (also topics added later)."),
);
// Empty or null: no description (joi's allow('') leaves the type string).
const description = t
  .string(Joi.string().trim().max(500).description('Free text for people, at most 500 characters; empty or null: none.'))
  .nullable()
  .rules((s) => s.allow(''));

export const CreateWebhookEndpointDto = typedDto(
  'CreateWebhookEndpointDto',
  t.object({
    url: t
      .string(httpUrl().description('Receiver URL, http or https, at most 2048 characters, no credentials; unique within the tenant.'))
      .required(),
    topics: topicList.required(),
    description,
    enabled: t.boolean(bool()).default(true),
  }),
);

export const UpdateWebhookEndpointDto = typedDto(
  'UpdateWebhookEndpointDto',
  t.object({ url: t.string(httpUrl()), topics: topicList, description, enabled: t.boolean(bool()) }).rules((o) => o.min(1)),
);

const endpointFields = {
  id: Joi.string().required(),
  url: Joi.string().required(),
  description: Joi.string().allow(null).required(),
  topics: Joi.array().items(Joi.string()).required(),
  enabled: Joi.boolean().required(),
  secretLast4: Joi.string().required().description('The last four characters of the signing secret, to tell secrets apart.'),
  secretRotatedAt: Joi.string().isoDate().allow(null).required(),
  createdAt: Joi.string().isoDate().required(),
  updatedAt: Joi.string().isoDate().required(),
};
const EndpointItem = Joi.object(endpointFields).label('WebhookEndpoint');

export const WebhookEndpointResponse = dto('WebhookEndpointResponse', EndpointItem);
export const WebhookEndpointWithSecretResponse = dto(
  'WebhookEndpointWithSecretResponse',
  Joi.object({
    ...endpointFields,
    secret: Joi.string().required().description('The signing secret (whsec_…). Shown only in this answer; store it now.'),
  }),
);
export const WebhookEndpointListResponse = dto(
  'WebhookEndpointListResponse',
  Joi.object({ items: Joi.array().items(EndpointItem).required(), nextCursor: Joi.string().allow(null).required() }),
);

const deliveryFields = {
  id: Joi.string().required().description('The deliveryId (also X-Service-Delivery-Id): the same on every attempt and replay.'),
  endpointId: Joi.string().allow(null).required(),
  eventId: Joi.string().required(),
  topic: Joi.string().required(),
  url: Joi.string().allow(null).required(),
  test: Joi.boolean().required().description('Made by POST /webhooks/test.'),
  status: oneOf(DELIVERY_STATUSES)
    .required()
    .description('PENDING (attempts left), DELIVERED (a 2xx answer), DEAD (the fifth attempt failed: the dead-letter queue).'),
  attempts: Joi.number().integer().min(0).max(5).required().description('Attempts of the current round (a replay starts a new round).'),
  totalAttempts: Joi.number().integer().min(0).required(),
  replays: Joi.number().integer().min(0).required(),
  nextAttemptAt: Joi.string().isoDate().allow(null).required(),
  lastStatusCode: Joi.number().integer().allow(null).required(),
  lastError: Joi.string().allow(null).required(),
  lastAttemptAt: Joi.string().isoDate().allow(null).required(),
  deliveredAt: Joi.string().isoDate().allow(null).required(),
  deadAt: Joi.string().isoDate().allow(null).required(),
  createdAt: Joi.string().isoDate().required(),
};
const DeliveryItem = Joi.object(deliveryFields).label('WebhookDelivery');

export const WebhookDeliveryResponse = dto('WebhookDeliveryResponse', DeliveryItem);
export const WebhookDeliveryListResponse = dto(
  'WebhookDeliveryListResponse',
  Joi.object({ items: Joi.array().items(DeliveryItem).required(), nextCursor: Joi.string().allow(null).required() }),
);
export const WebhookDeliveryDetailResponse = dto(
  'WebhookDeliveryDetailResponse',
  Joi.object({
    ...deliveryFields,
    payload: envelope.required(),
    history: Joi.array()
      .items(
        Joi.object({
          number: Joi.number().integer().min(1).required(),
          outcome: Joi.string().valid('SUCCESS', 'FAILURE').required(),
          statusCode: Joi.number().integer().allow(null).required(),
          error: Joi.string().allow(null).required(),
          durationMs: Joi.number().integer().min(0).required(),
          attemptedAt: Joi.string().isoDate().required(),
        }).label('WebhookAttempt'),
      )
      .required(),
  }),
);

export const ReplayDeadLettersDto = dto(
  'ReplayDeadLettersDto',
  Joi.object({ endpointId: uuid().description("Only this endpoint's dead letters; all of the tenant's when absent.") }),
);
export const ReplayDeadLettersResponse = dto(
  'ReplayDeadLettersResponse',
  Joi.object({
    replayed: Joi.number().integer().min(0).required(),
    remaining: Joi.number()
      .integer()
      .min(0)
      .required()
      .description('Dead letters left (more than one call replays); call again while above 0.'),
  }),
);
