/** DTOs of the flash sale campaigns area. */
import { pendingDto } from '../http/route';

export const CreateFlashSaleCampaignDto = pendingDto('CreateFlashSaleCampaignDto');
export const UpdateFlashSaleCampaignDto = pendingDto('UpdateFlashSaleCampaignDto');
