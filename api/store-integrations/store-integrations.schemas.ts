/** DTOs of the store integrations area (third-party services connected to a store). */
import { pendingDto } from '../http/route';

export const ConnectStoreIntegrationDto = pendingDto('ConnectStoreIntegrationDto');
export const ToggleStoreIntegrationDto = pendingDto('ToggleStoreIntegrationDto');
