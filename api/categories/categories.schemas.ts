/** DTOs of the categories area (categories and category attributes). */
import Joi from 'joi';
import { csvDocument, dto, pendingDto } from '../http/route';
import { storeId } from '../http/schema-types';

export const CreateCategoryDto = pendingDto('CreateCategoryDto');
export const UpdateCategoryDto = pendingDto('UpdateCategoryDto');
export const ReorderCategoriesDto = pendingDto('ReorderCategoriesDto');
/**
 * The body of the CSV imports (categories, brands, collections): the store and the CSV text. The
 * request is bounded by BODY_LIMIT_JSON (default 1 MB, 413 above) and each layout by its row limit.
 */
export const CsvImportBodyDto = dto(
  'CsvImportBodyDto',
  Joi.object({
    storeId: storeId(),
    csv: Joi.string().min(1).required().description('UTF-8 CSV with a header row, in the column layout of the resource (see the operation).'),
  }),
);
export const SetCategoryAttributesDto = pendingDto('SetCategoryAttributesDto');

export const CategoriesCsv = csvDocument('CategoriesCsv', 'The categories of a store, one row per category with its parent.');
