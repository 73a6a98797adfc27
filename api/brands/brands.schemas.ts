/** DTOs of the brands area. The CSV import body is shared: see categories.schemas.ts. */
import { csvDocument, pendingDto } from '../http/route';

export const CreateBrandDto = pendingDto('CreateBrandDto');
export const UpdateBrandDto = pendingDto('UpdateBrandDto');
export const BulkSetBrandStatusDto = pendingDto('BulkSetBrandStatusDto');

export const BrandsCsv = csvDocument('BrandsCsv', 'The brands of a store, one row per brand.');
