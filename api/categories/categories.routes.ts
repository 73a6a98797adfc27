/**
 * Categories of a store and the attributes each category asks of its products (docs/catalog.md).
 * Two tables because the specification lists the category attributes apart, after the filter
 * configuration.
 */
import { csvDownload } from '../http/csv';
import { defineRoutes, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import {
  ProductAttributeReportResponse,
  CategoriesCsv,
  CategoryAttributesResponse,
  CategoryImportResponse,
  CategoryListResponse,
  CategoryResponse,
  CreateCategoryDto,
  CsvImportBodyDto,
  ReorderCategoriesDto,
  SetCategoryAttributesDto,
  UpdateCategoryDto,
} from './categories.schemas';
import {
  createCategory,
  deleteCategory,
  listCategories,
  reorderCategories,
  updateCategory,
  type CategoryInput,
  type CreateCategoryInput,
  type ReorderInput,
} from './categories.service';
import { exportCategories, importCategories } from './categories.csv';
import {
  listCategoryAttributes,
  setCategoryAttributes,
  validateProductAttributes,
  type AttributeInput,
} from './category-attributes.service';
import {
  access,
  CREATE_DESCRIPTION,
  DELETE_DESCRIPTION,
  EXPORT_DESCRIPTION,
  IMPORT_DESCRIPTION,
  LIST_DESCRIPTION,
  REORDER_DESCRIPTION,
  SET_DESCRIPTION,
  UPDATE_DESCRIPTION,
  VALIDATE_PRODUCT_DESCRIPTION,
} from './categories.descriptions';

type Params = Record<string, string>;

export const categoryRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'categories.list',
    method: 'GET',
    path: '/catalog/categories',
    summary: 'Categories of a store',
    description: LIST_DESCRIPTION,
    query: { storeId: storeId() },
    response: CategoryListResponse,
    status: 200,
    handler: (req: RouteRequest<object, Params>) => listCategories(req.context, req.query.storeId!),
  },
  {
    operationId: 'categories.create',
    method: 'POST',
    path: '/catalog/categories',
    summary: 'Create a category',
    description: CREATE_DESCRIPTION,
    body: CreateCategoryDto,
    response: CategoryResponse,
    status: 201,
    problems: [409],
    handler: (req: RouteRequest<object, object, CreateCategoryInput>) => createCategory(req.context, req.body),
  },
  {
    operationId: 'categories.export',
    method: 'GET',
    path: '/catalog/categories/export',
    summary: 'Export the categories of a store as CSV',
    description: EXPORT_DESCRIPTION,
    query: { storeId: storeId() },
    response: CategoriesCsv,
    status: 200,
    handler: csvDownload((ctx, query: Params) => exportCategories(ctx, query.storeId!)),
  },
  {
    operationId: 'categories.update',
    method: 'PUT',
    path: '/catalog/categories/{id}',
    summary: 'Replace a category',
    description: UPDATE_DESCRIPTION,
    body: UpdateCategoryDto,
    response: CategoryResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, object, CategoryInput>) => updateCategory(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'categories.delete',
    method: 'DELETE',
    path: '/catalog/categories/{id}',
    summary: 'Delete a category',
    description: DELETE_DESCRIPTION,
    status: 204,
    problems: [409],
    handler: (req: RouteRequest<Params>) => deleteCategory(req.context, req.params.id!),
  },
  {
    operationId: 'categories.reorder',
    method: 'POST',
    path: '/catalog/categories/reorder',
    summary: 'Set the order of categories',
    description: REORDER_DESCRIPTION,
    body: ReorderCategoriesDto,
    status: 204,
    handler: (req: RouteRequest<object, object, ReorderInput>) => reorderCategories(req.context, req.body),
  },
  {
    operationId: 'categories.import',
    method: 'POST',
    path: '/catalog/categories/import',
    summary: 'Import categories from CSV',
    description: IMPORT_DESCRIPTION,
    body: CsvImportBodyDto,
    response: CategoryImportResponse,
    status: 200,
    handler: (req: RouteRequest<object, object, { storeId: string; csv: string }>) => importCategories(req.context, req.body),
  },
]);

export const categoryAttributeRoutes = defineRoutes({ tag: 'category-attributes', auth: 'merchant' }, [
  {
    operationId: 'categoryAttributes.list',
    method: 'GET',
    path: '/categories/{id}/attributes',
    summary: 'The attributes a category asks of its products',
    description: `${access} Ordered by position.`,
    response: CategoryAttributesResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listCategoryAttributes(req.context, req.params.id!),
  },
  {
    operationId: 'categoryAttributes.set',
    method: 'PUT',
    path: '/categories/{id}/attributes',
    summary: 'Replace the attributes of a category',
    description: SET_DESCRIPTION,
    body: SetCategoryAttributesDto,
    response: CategoryAttributesResponse,
    status: 200,
    handler: (req: RouteRequest<Params, object, { attributes: AttributeInput[] }>) =>
      setCategoryAttributes(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'categoryAttributes.validateProduct',
    method: 'GET',
    path: '/products/{id}/category-attributes/validate',
    summary: 'Check a product against the attributes its category requires',
    description: VALIDATE_PRODUCT_DESCRIPTION,
    response: ProductAttributeReportResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => validateProductAttributes(req.context, req.params.id!),
  },
]);
