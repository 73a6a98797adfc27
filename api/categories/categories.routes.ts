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

type Params = Record<string, string>;

const access =
  "Any member of the tenant, or an API key of the store with the scope of this tag. Another tenant's store or category answers 404.";
const audited =
  'Each changed category gets one audit entry and one outbox row (queue index); a write that changes nothing records neither.';

export const categoryRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'categories.list',
    method: 'GET',
    path: '/catalog/categories',
    summary: 'Categories of a store',
    description: `${access} The whole tree as a flat list, depth-first: each parent, then its children ordered by position (ties by name). depth is 0 for roots; path lists the ancestors' slugs and its own.`,
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
    description: `${access} A taken slug answers 409 slug_taken; a parent that is not a category of the store 400 invalid_parent. Without a slug one is derived from the name (-2, -3, … until free); without a position the category goes after its last sibling. ${audited}`,
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
    description: `${access} Columns: slug, name, parentSlug, position, isActive, description, imageUrl; parents before children. Cells that a spreadsheet would read as a formula get a leading apostrophe (the import removes it).`,
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
    description: `${access} Replaces the editable fields: name is required; an omitted description, imageUrl or parentId becomes null (a root category) and an omitted isActive true; an omitted slug is kept, and an omitted position is kept while the parent stays (after the last sibling when it moves). Moving a category under itself or one of its descendants answers 400 category_cycle; a taken slug 409 slug_taken. ${audited}`,
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
    description: `${access} Refuses a category that has child categories (409 category_has_children): move or delete the children first; nothing is re-parented implicitly. The category's attributes are deleted with it. ${audited}`,
    status: 204,
    problems: [409],
    handler: (req: RouteRequest<Params>) => deleteCategory(req.context, req.params.id!),
  },
  {
    operationId: 'categories.reorder',
    method: 'POST',
    path: '/catalog/categories/reorder',
    summary: 'Set the order of categories',
    description: `${access} ids must be exactly the children of parentId (null: the root categories), each once, in the new order (else 400 reorder_mismatch); they get positions 0, 1, 2, … ${audited}`,
    body: ReorderCategoriesDto,
    status: 204,
    handler: (req: RouteRequest<object, object, ReorderInput>) => reorderCategories(req.context, req.body),
  },
  {
    operationId: 'categories.import',
    method: 'POST',
    path: '/catalog/categories/import',
    summary: 'Import categories from CSV',
    description: `${access} The export's layout: slug (required, the key: create or update, case-insensitively), name (required), parentSlug (empty: root; else a category of the file or the store, else rows[N].parentSlug is invalid), position (empty: kept while the parent stays, else after the last sibling), isActive (true/false, empty: true), description, imageUrl (empty: cleared). Rows may come in any order; parents are resolved within the file, and parents that would form a cycle answer 400 category_cycle. Every row is validated first: any bad row answers 400 listing rows[N].column (N counts data rows from 1) and nothing is written; otherwise all rows are written in one transaction. At most 5000 rows (413) within the JSON body limit. Answers the counts of created, updated and unchanged categories. ${audited}`,
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
    description: `${access} Replaces the whole set; position is the index in the list. An attribute whose name stays (case-insensitively) keeps its id; the others are deleted or created. values are required for enum (1 to 200 distinct) and forbidden for the other types. A change records one audit entry (category.set_attributes, with the lists before and after) and one outbox row for the category; the same set again records neither.`,
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
    description: `${access} Reports the required attributes the product lacks, values of the wrong type or outside the allowed values, and values no category of the product defines; changes nothing. Publishing refuses a product with missing required attributes (400 missing_required_attributes).`,
    response: ProductAttributeReportResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => validateProductAttributes(req.context, req.params.id!),
  },
]);
