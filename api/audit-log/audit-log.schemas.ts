/** DTOs of the audit log area. */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { dateTime, uuid } from '../http/schema-types';

export const AuditLogCsv = csvDocument(
  'AuditLogCsv',
  'Audit log entries matching the filters, one row per entry, oldest first. Columns: id, createdAt, action, resourceType, resourceId, actorType, actorId, ip, userAgent, requestId, before (JSON), after (JSON). Cells that begin with =, +, -, @, a tab or a carriage return are prefixed with an apostrophe against spreadsheet formula injection.',
);

const Actor = Joi.object({
  type: Joi.string().required().description('user, api_key, system or anonymous.'),
  id: Joi.string().allow(null).required().description('The user id, API key id or worker name.'),
}).label('AuditActor');

export const AuditLogItem = Joi.object({
  id: uuid().required(),
  action: Joi.string().required().description('`<resource>.<verb>`, e.g. store.create, api_key.revoke.'),
  resourceType: Joi.string().required(),
  resourceId: Joi.string().allow(null).required(),
  actor: Actor.required(),
  ip: Joi.string().allow(null).required(),
  userAgent: Joi.string().allow(null).required(),
  requestId: Joi.string().allow(null).required(),
  createdAt: dateTime().required(),
}).label('AuditLogItem');

export const AuditLogListResponse = dto(
  'AuditLogListResponse',
  Joi.object({
    items: Joi.array().items(AuditLogItem).required().description('Newest first.'),
    nextCursor: Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);

const Values = Joi.object().unknown(true).allow(null).description('Field values (secrets are never recorded).');

export const AuditLogDiffResponse = dto(
  'AuditLogDiffResponse',
  Joi.object({
    id: uuid().required(),
    action: Joi.string().required(),
    resourceType: Joi.string().required(),
    resourceId: Joi.string().allow(null).required(),
    createdAt: dateTime().required(),
    before: Values.required(),
    after: Values.required(),
    changes: Joi.array()
      .items(Joi.object({ field: Joi.string().required(), before: Joi.any().required(), after: Joi.any().required() }).label('AuditChange'))
      .required()
      .description('The fields whose values differ; a field absent on one side is null there.'),
  }),
);
