/** DTOs of the API keys area. */
import { csvDocument, pendingDto } from '../http/route';

export const CreateApiKeyDto = pendingDto('CreateApiKeyDto');
export const ApiKeysCsv = csvDocument('ApiKeysCsv', 'The API keys of a store, one row per key (never the secret).');
