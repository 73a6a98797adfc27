/** DTOs of the search synonyms area. */
import { pendingDto } from '../http/route';

export const CreateSearchSynonymRuleDto = pendingDto('CreateSearchSynonymRuleDto');
export const UpdateSearchSynonymRuleDto = pendingDto('UpdateSearchSynonymRuleDto');
