/**
 * Categories of a store and the attributes each category asks of its products (document 2,
 * "Catalog: categories, relations, tags, filter configuration"). Two tables because the
 * specification lists the category attributes apart, after the filter configuration.
 */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { CategoriesCsv, CreateCategoryDto, CsvImportBodyDto, ReorderCategoriesDto, SetCategoryAttributesDto, UpdateCategoryDto } from './categories.schemas';

export const categoryRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  { operationId: 'categories.list', method: 'GET', path: '/catalog/categories', summary: 'Categories of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'categories.create', method: 'POST', path: '/catalog/categories', summary: 'Create a category', body: CreateCategoryDto, status: 201 },
  {
    operationId: 'categories.export',
    method: 'GET',
    path: '/catalog/categories/export',
    summary: 'Export the categories of a store as CSV',
    query: { storeId: storeId() },
    response: CategoriesCsv,
    status: 200,
  },
  { operationId: 'categories.update', method: 'PUT', path: '/catalog/categories/{id}', summary: 'Replace a category', body: UpdateCategoryDto, status: 200 },
  { operationId: 'categories.delete', method: 'DELETE', path: '/catalog/categories/{id}', summary: 'Delete a category', status: 204 },
  { operationId: 'categories.reorder', method: 'POST', path: '/catalog/categories/reorder', summary: 'Set the order of categories', body: ReorderCategoriesDto, status: 204 },
  { operationId: 'categories.import', method: 'POST', path: '/catalog/categories/import', summary: 'Import categories from CSV', body: CsvImportBodyDto, status: 200 },
]);

export const categoryAttributeRoutes = defineRoutes({ tag: 'category-attributes', auth: 'merchant' }, [
  { operationId: 'categoryAttributes.list', method: 'GET', path: '/categories/{id}/attributes', summary: 'The attributes a category asks of its products', status: 200 },
  { operationId: 'categoryAttributes.set', method: 'PUT', path: '/categories/{id}/attributes', summary: 'Replace the attributes of a category', body: SetCategoryAttributesDto, status: 200 },
  {
    operationId: 'categoryAttributes.validateProduct',
    method: 'GET',
    path: '/products/{id}/category-attributes/validate',
    summary: 'Check a product against the attributes its category requires',
    status: 200,
  },
]);
