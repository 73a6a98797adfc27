/** DTOs of the storefront filter configuration. */
import { pendingDto } from '../http/route';

export const UpdateFilterConfigDto = pendingDto('UpdateFilterConfigDto');
