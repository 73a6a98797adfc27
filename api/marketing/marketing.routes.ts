/** Marketing: campaigns and automations with their runs. */
import { defineRoutes } from '../http/route';
import { CreateAutomationDto, CreateCampaignDto, TriggerAutomationDto, UpdateAutomationDto, UpdateCampaignDto } from './marketing.schemas';

export const marketingRoutes = defineRoutes({ tag: 'marketing', auth: 'merchant' }, [
  { operationId: 'marketing.listCampaigns', method: 'GET', path: '/marketing/campaigns', summary: 'Marketing campaigns', status: 200 },
  { operationId: 'marketing.createCampaign', method: 'POST', path: '/marketing/campaigns', summary: 'Create a campaign', body: CreateCampaignDto, status: 201 },
  { operationId: 'marketing.getCampaign', method: 'GET', path: '/marketing/campaigns/{id}', summary: 'One campaign', status: 200 },
  { operationId: 'marketing.updateCampaign', method: 'PATCH', path: '/marketing/campaigns/{id}', summary: 'Update a campaign', body: UpdateCampaignDto, status: 200 },
  { operationId: 'marketing.deleteCampaign', method: 'DELETE', path: '/marketing/campaigns/{id}', summary: 'Delete a campaign', status: 204 },
  { operationId: 'marketing.sendCampaign', method: 'POST', path: '/marketing/campaigns/{id}/send', summary: 'Send a campaign to its audience', status: 201 },
  { operationId: 'marketing.listAutomations', method: 'GET', path: '/marketing/automations', summary: 'Marketing automations', status: 200 },
  { operationId: 'marketing.createAutomation', method: 'POST', path: '/marketing/automations', summary: 'Create an automation', body: CreateAutomationDto, status: 201 },
  { operationId: 'marketing.getAutomation', method: 'GET', path: '/marketing/automations/{id}', summary: 'One automation', status: 200 },
  { operationId: 'marketing.updateAutomation', method: 'PATCH', path: '/marketing/automations/{id}', summary: 'Update an automation', body: UpdateAutomationDto, status: 200 },
  { operationId: 'marketing.deleteAutomation', method: 'DELETE', path: '/marketing/automations/{id}', summary: 'Delete an automation', status: 204 },
  { operationId: 'marketing.triggerAutomation', method: 'POST', path: '/marketing/automations/{id}/trigger', summary: 'Start a run of an automation by hand', body: TriggerAutomationDto, status: 201 },
  { operationId: 'marketing.cancelAutomationRun', method: 'POST', path: '/marketing/automations/runs/{runId}/cancel', summary: 'Cancel a run of an automation', status: 200 },
  { operationId: 'marketing.listAutomationRuns', method: 'GET', path: '/marketing/automations/{id}/runs', summary: 'Runs of an automation', status: 200 },
]);
