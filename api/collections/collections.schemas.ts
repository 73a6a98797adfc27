/** DTOs of the collections area. The CSV import body is shared: see categories.schemas.ts. */
import { csvDocument, pendingDto } from '../http/route';

export const CreateCollectionDto = pendingDto('CreateCollectionDto');
export const UpdateCollectionDto = pendingDto('UpdateCollectionDto');
export const BulkSetCollectionStatusDto = pendingDto('BulkSetCollectionStatusDto');
export const IdsBodyDto = pendingDto('IdsBodyDto');
export const CollectionItemsDto = pendingDto('CollectionItemsDto');

export const CollectionsCsv = csvDocument('CollectionsCsv', 'The collections of a store, one row per collection.');
