/** DTOs of the organization area (tenant and stores). */
import { pendingDto } from '../http/route';

export const UpdateTenantDto = pendingDto('UpdateTenantDto');
export const CreateStoreDto = pendingDto('CreateStoreDto');
export const UpdateStoreDto = pendingDto('UpdateStoreDto');
