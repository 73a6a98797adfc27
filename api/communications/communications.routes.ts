/** Communications: in-app notifications of the signed-in user (docs/messaging.md, "In-app notifications"). */
import Joi from 'joi';
import { defineRoutes, dto, listedRequired, type RouteRequest } from '../http/route';
import { bool, positiveInt } from '../http/schema-types';
import { listNotifications, markAllNotificationsRead, markNotificationRead } from './communications.service';

type Params = Record<string, string>;

const Notification = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().allow(null).required(),
  topic: Joi.string().required().description('`<area>.<event>`, e.g. `imports.finished`.'),
  title: Joi.string().required(),
  body: Joi.string().allow('').required(),
  link: Joi.string().allow(null).required(),
  read: Joi.boolean().required(),
  readAt: Joi.string().isoDate().allow(null).required(),
  createdAt: Joi.string().isoDate().required(),
}).label('MerchantNotification');

const NotificationListResponse = dto(
  'NotificationListResponse',
  Joi.object({
    items: Joi.array().items(Notification).required(),
    unreadCount: Joi.number().integer().min(0).required().description('All unread notifications of the user, not only this page.'),
  }),
);
const ReadAllResponse = dto(
  'NotificationsReadAllResponse',
  Joi.object({ count: Joi.number().integer().min(0).required().description('How many notifications were marked read.') }),
);

export const communicationsRoutes = defineRoutes({ tag: 'communications', auth: 'user' }, [
  {
    operationId: 'communications.listNotifications',
    method: 'GET',
    path: '/communications/notifications',
    summary: 'Notifications of the signed-in user, newest first',
    description:
      "The tenant's notifications to every member and those to this user. The specification does not type these parameters: unreadOnly is true or false, default false; limit is 1 to 100, default 50. A user of no tenant has none.",
    query: { unreadOnly: listedRequired(bool().default(false)), limit: listedRequired(positiveInt(100).default(50)) },
    response: NotificationListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listNotifications(req.context, req.query as { unreadOnly: boolean; limit: number }),
  },
  {
    operationId: 'communications.markNotificationRead',
    method: 'POST',
    path: '/communications/notifications/{id}/read',
    summary: 'Mark a notification read',
    description:
      "Another tenant's notification, or another member's: 404 notification_not_found. Marking a read one again changes nothing.",
    status: 204,
    handler: async (req: RouteRequest<Params>) => {
      await markNotificationRead(req.context, req.params.id!);
    },
  },
  {
    operationId: 'communications.markAllNotificationsRead',
    method: 'POST',
    path: '/communications/notifications/read-all',
    summary: 'Mark every notification of the user read',
    response: ReadAllResponse,
    status: 200,
    handler: (req: RouteRequest) => markAllNotificationsRead(req.context),
  },
]);
