/** DTOs, enums and response schemas of platform incidents (docs/support.md, "Incidents"). */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { text, uuid } from '../http/schema-types';
import { BULK_MAX } from './tickets.schemas';

/** Incident status, in the order an incident usually goes through them. */
export const INCIDENT_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;
export const INCIDENT_SEVERITIES = ['MINOR', 'MAJOR', 'CRITICAL'] as const;

export const LinkTicketsIncidentDto = typedDto(
  'LinkTicketsIncidentDto',
  t
    .object({
      ticketIds: t
        .array(
          t.string(uuid()),
          Joi.array().min(1).max(BULK_MAX).unique().description(`1 to ${BULK_MAX} distinct ticket ids, of any tenant.`),
        )
        .required(),
      incidentId: t.string(uuid().description('The incident to link them to (404 incident_not_found).')),
      incident: t
        .object({
          title: t.string(text(1, 200).trim()).required(),
          severity: t.oneOf(INCIDENT_SEVERITIES).default('MAJOR'),
          status: t.oneOf(INCIDENT_STATUSES).default('INVESTIGATING'),
        })
        .rules((o) => o.description('A new incident to create and link them to (this is how incidents come to exist).')),
    })
    .rules((o) =>
      o.xor('incidentId', 'incident').description('Exactly one of incidentId (an existing incident) and incident (a new one).'),
    ),
);

export const IncidentBroadcastDto = typedDto(
  'IncidentBroadcastDto',
  t.object({
    message: t.string(text(1, 5000).description('The update, 1 to 5000 characters; sent as is to every affected merchant.')).required(),
    status: t.oneOf(INCIDENT_STATUSES, (s) => s.description("The incident's new status, if it changes with this update.")),
    idempotencyKey: t.string(
      text(1, 200)
        .pattern(/^[\x21-\x7e]+$/)
        .description(
          'Printable ASCII, 1 to 200 characters. Retrying with the same key answers the first broadcast and notifies only affected merchants it has not reached yet; the same key with another message or status answers 409 incident_broadcast_key_reused.',
        ),
    ),
  }),
);

const IncidentFields = {
  id: Joi.string().required(),
  title: Joi.string().required(),
  status: Joi.string()
    .valid(...INCIDENT_STATUSES)
    .required(),
  severity: Joi.string()
    .valid(...INCIDENT_SEVERITIES)
    .required(),
  startedAt: Joi.string().required(),
  resolvedAt: Joi.string().allow(null).required(),
  createdAt: Joi.string().required(),
  updatedAt: Joi.string().required(),
  linkedTicketCount: Joi.number().integer().required().description("Linked tickets; for a merchant, the merchant's own."),
  affectedMerchantCount: Joi.number()
    .integer()
    .allow(null)
    .required()
    .description('Tenants with a linked ticket (platform staff only; null for merchants).'),
};
const IncidentItem = Joi.object(IncidentFields);
const UpdateItem = Joi.object({
  id: Joi.string().required(),
  message: Joi.string().required(),
  status: Joi.string()
    .valid(...INCIDENT_STATUSES)
    .required(),
  createdAt: Joi.string().required(),
});

export const IncidentResponse = dto(
  'SupportIncidentResponse',
  Joi.object({ ...IncidentFields, updates: Joi.array().items(UpdateItem).required().description('Broadcast updates, oldest first.') }),
);
export const IncidentListResponse = dto(
  'SupportIncidentListResponse',
  Joi.object({
    items: Joi.array().items(IncidentItem).required(),
    nextCursor: Joi.string().allow(null).required().description('The id of the last incident when there are more; pass it as cursor.'),
  }),
);
export const LinkIncidentResponse = dto(
  'SupportLinkIncidentResponse',
  Joi.object({
    incident: IncidentItem.required(),
    created: Joi.boolean().required().description('True when this request created the incident.'),
    linked: Joi.array().items(Joi.string()).required().description('Tickets now linked (moved from another incident included).'),
    alreadyLinked: Joi.array().items(Joi.string()).required(),
    notFound: Joi.array().items(Joi.string()).required(),
  }),
);
export const IncidentBroadcastResponse = dto(
  'SupportIncidentBroadcastResponse',
  Joi.object({
    updateId: Joi.string().required(),
    incidentId: Joi.string().required(),
    status: Joi.string()
      .valid(...INCIDENT_STATUSES)
      .required(),
    replayed: Joi.boolean().required().description('True when the idempotencyKey named an earlier broadcast.'),
    notified: Joi.number().integer().required().description('Merchants (tenants) notified by this request.'),
    alreadyNotified: Joi.number().integer().required().description('Affected merchants this broadcast had already reached.'),
  }),
);
