/** DTOs of the marketing area (campaigns and automations). */
import { pendingDto } from '../http/route';

export const CreateCampaignDto = pendingDto('CreateCampaignDto');
export const UpdateCampaignDto = pendingDto('UpdateCampaignDto');
export const CreateAutomationDto = pendingDto('CreateAutomationDto');
export const UpdateAutomationDto = pendingDto('UpdateAutomationDto');
export const TriggerAutomationDto = pendingDto('TriggerAutomationDto');
