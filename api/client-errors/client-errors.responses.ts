/** The response schemas of the client errors area; tests check every answer against them. */
import Joi from 'joi';
import { dto } from '../http/route';
import { CLIENT_ERROR_GROUP_STATES, CLIENT_ERROR_KINDS, CLIENT_ERROR_LEVELS } from './client-errors.schemas';

const isoDate = () => Joi.string().isoDate();
const level = () => Joi.string().valid(...CLIENT_ERROR_LEVELS);
const kind = () => Joi.string().valid(...CLIENT_ERROR_KINDS);

export const ClientErrorReportResponse = dto(
  'ClientErrorReportResponse',
  Joi.object({
    accepted: Joi.number().integer().min(1).required().description('Events recorded.'),
    fingerprints: Joi.array().items(Joi.string()).required().description('The fingerprint of each event, in the order they were sent.'),
  }),
);

const ClientErrorEvent = Joi.object({
  id: Joi.string().required(),
  fingerprint: Joi.string().required(),
  app: Joi.string().required(),
  level: level().required(),
  kind: kind().required(),
  message: Joi.string().required(),
  stack: Joi.string().allow(null).required(),
  url: Joi.string().allow(null).required(),
  userAgent: Joi.string().allow(null).required(),
  storeId: Joi.string().allow(null).required(),
  tenantId: Joi.string().allow(null).required(),
  receivedAt: isoDate().required(),
}).label('ClientErrorEvent');

export const ClientErrorListResponse = dto(
  'ClientErrorListResponse',
  Joi.object({
    items: Joi.array().items(ClientErrorEvent).required().description('Newest first.'),
    nextCursor: Joi.string().allow(null).required(),
  }),
);

const Sample = Joi.object({
  eventId: Joi.string().required(),
  app: Joi.string().required(),
  level: level().required(),
  message: Joi.string().required(),
  stack: Joi.string().allow(null).required(),
  url: Joi.string().allow(null).required(),
  storeId: Joi.string().allow(null).required(),
  receivedAt: isoDate().required(),
})
  .label('ClientErrorSample')
  .description('The newest event of the group.');

const Group = Joi.object({
  fingerprint: Joi.string().required(),
  kind: kind().required(),
  title: Joi.string().required().description('The normalised message.'),
  topFrame: Joi.string().allow('').required(),
  status: Joi.string()
    .valid(...CLIENT_ERROR_GROUP_STATES)
    .required(),
  totalCount: Joi.number().integer().required().description('Events of the group ever reported (pruned ones included).'),
  firstSeenAt: isoDate().required(),
  lastSeenAt: isoDate().required(),
  statusChangedAt: isoDate().allow(null).required(),
  reopenedAt: isoDate().allow(null).required(),
  commentCount: Joi.number().integer().required(),
  sample: Sample.required(),
}).label('ClientErrorGroup');

export const ClientErrorGroupResponse = dto('ClientErrorGroupResponse', Group);

const GroupInWindow = Group.keys({
  count: Joi.number().integer().required().description('Events in the window matching the filters.'),
  apps: Joi.array().items(Joi.string()).required().description('Apps that reported it in the window.'),
  levels: Joi.array().items(level()).required(),
}).label('ClientErrorGroupInWindow');

export const ClientErrorGroupListResponse = dto(
  'ClientErrorGroupListResponse',
  Joi.object({
    items: Joi.array().items(GroupInWindow).required().description('Most events in the window first (at most limit).'),
    since: isoDate().required().description('Start of the window: the start of the hour `hours` hours ago.'),
  }),
);

const counted = (key: string) => Joi.object({ [key]: Joi.string().required(), count: Joi.number().integer().required() });

export const ClientErrorStatsResponse = dto(
  'ClientErrorStatsResponse',
  Joi.object({
    since: isoDate().required(),
    totalEvents: Joi.number().integer().required(),
    groups: Joi.number().integer().required().description('Groups with events in the window.'),
    byLevel: Joi.array().items(counted('level')).required(),
    byKind: Joi.array().items(counted('kind')).required(),
    byApp: Joi.array().items(counted('app')).required(),
    hourly: Joi.array()
      .items(Joi.object({ hour: isoDate().required(), count: Joi.number().integer().required() }))
      .required()
      .description('Events per hour, oldest first; hours without events are left out.'),
    topGroups: Joi.array()
      .items(Joi.object({ fingerprint: Joi.string().required(), title: Joi.string().required(), count: Joi.number().integer().required() }))
      .required()
      .description('The groups with the most events in the window (at most limit).'),
  }),
);

const Comment = Joi.object({
  id: Joi.string().required(),
  fingerprint: Joi.string().required(),
  body: Joi.string().required(),
  author: Joi.object({ id: Joi.string().required(), name: Joi.string().required() }).allow(null).required(),
  createdAt: isoDate().required(),
}).label('ClientErrorComment');

export const ClientErrorCommentResponse = dto('ClientErrorCommentResponse', Comment);
export const ClientErrorCommentListResponse = dto(
  'ClientErrorCommentListResponse',
  Joi.object({ items: Joi.array().items(Comment).required().description('Oldest first; a group keeps at most 500.') }),
);
