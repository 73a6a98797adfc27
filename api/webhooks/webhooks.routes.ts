/** The webhook tester (document 1 "Subscription and test"; document 2 "Sandbox and import"). */
import { defineRoutes } from '../http/route';
import { WebhookTestDto } from './webhooks.schemas';

export const webhookRoutes = defineRoutes({ tag: 'webhooks', auth: 'merchant' }, [
  {
    operationId: 'webhooks.test',
    method: 'POST',
    path: '/webhooks/test',
    summary: 'Send a signed test event of a topic to an endpoint, with production headers and retries',
    description: 'Listed as POST /api/v1/webhooks/test. The success status is not stated: 202 Accepted, because delivery (and its retries) happens in the background.',
    body: WebhookTestDto,
    status: 202,
  },
]);
