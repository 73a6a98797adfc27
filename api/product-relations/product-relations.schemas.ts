/** DTOs of the product relations area (links from one product to others). */
import { pendingDto } from '../http/route';

export const UpsertProductRelationDto = pendingDto('UpsertProductRelationDto');
export const ReorderProductRelationsDto = pendingDto('ReorderProductRelationsDto');
