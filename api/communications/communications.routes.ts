/** Communications: in-app notifications of the signed-in user. */
import { defineRoutes, listedRequired } from '../http/route';
import { bool, positiveInt } from '../http/schema-types';

export const communicationsRoutes = defineRoutes({ tag: 'communications', auth: 'user' }, [
  {
    operationId: 'communications.listNotifications',
    method: 'GET',
    path: '/communications/notifications',
    summary: 'Notifications of the signed-in user, newest first',
    description:
      'The specification does not type these parameters: unreadOnly is true or false, default false; limit is 1 to 100, default 50.',
    query: { unreadOnly: listedRequired(bool().default(false)), limit: listedRequired(positiveInt(100).default(50)) },
    status: 200,
  },
  {
    operationId: 'communications.markNotificationRead',
    method: 'POST',
    path: '/communications/notifications/{id}/read',
    summary: 'Mark a notification read',
    status: 204,
  },
  {
    operationId: 'communications.markAllNotificationsRead',
    method: 'POST',
    path: '/communications/notifications/read-all',
    summary: 'Mark every notification of the user read',
    status: 200,
  },
]);
