/** DTOs of the visual search area. */
import { pendingDto } from '../http/route';

export const VisualSearchSettingsDto = pendingDto('VisualSearchSettingsDto');
export const IndexProductDto = pendingDto('IndexProductDto');
export const QueryByImageDto = pendingDto('QueryByImageDto');
