/** DTOs of the categories area (categories and category attributes). */
import { csvDocument, pendingDto } from '../http/route';

export const CreateCategoryDto = pendingDto('CreateCategoryDto');
export const UpdateCategoryDto = pendingDto('UpdateCategoryDto');
export const ReorderCategoriesDto = pendingDto('ReorderCategoriesDto');
/**
 * The JSON body of the catalog CSV imports (categories, brands, collections): a named DTO that
 * carries the CSV text, not a text/csv body. Defined once here and shared by those areas.
 */
export const CsvImportBodyDto = pendingDto('CsvImportBodyDto');
export const SetCategoryAttributesDto = pendingDto('SetCategoryAttributesDto');

export const CategoriesCsv = csvDocument('CategoriesCsv', 'The categories of a store, one row per category with its parent.');
