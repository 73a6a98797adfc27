/**
 * Search synonym rules of a store, the queries that found nothing and, as extensions, the queries
 * answered only loosely and the built-in unit synonyms (docs/search.md, "Search index", "Built-in unit
 * synonyms" and "Zero-result and weak-result queries").
 */
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { cursor, positiveInt, storeId, text } from '../http/schema-types';
import {
  BuiltInSynonymListResponse,
  CreateSearchSynonymRuleDto,
  SearchSynonymRuleListResponse,
  SearchSynonymRuleResponse,
  UpdateSearchSynonymRuleDto,
  WeakResultQueryListResponse,
  ZeroResultQueryListResponse,
} from './search-synonyms.schemas';
import { listWeakResultQueries, listZeroResultQueries, ZERO_RESULT_LIST_CAP } from './zero-result-queries.service';
import {
  createSynonym,
  listBuiltInSynonyms,
  deleteSynonym,
  getSynonym,
  listSynonyms,
  updateSynonym,
  type CreateSynonymInput,
  type ListSynonymsQuery,
  type UpdateSynonymInput,
} from './search-synonyms.service';
import {
  BUILT_IN_DESCRIPTION,
  CREATE_DESCRIPTION,
  DELETE_DESCRIPTION,
  LIST_DESCRIPTION,
  readers,
  UPDATE_DESCRIPTION,
  weakResultQueriesDescription,
  zeroResultQueriesDescription,
} from './search-synonyms.descriptions';

type Params = Record<string, string>;

/** The operations of this table that the specification does not list (extensions; their descriptions say so). */
export const searchSynonymExtensionOperationIds = ['searchSynonyms.weakResultQueries', 'searchSynonyms.builtIn'] as const;

export const searchSynonymRoutes = defineRoutes({ tag: 'search-synonyms', auth: 'merchant' }, [
  {
    operationId: 'searchSynonyms.list',
    method: 'GET',
    path: '/search-synonyms',
    summary: 'Synonym rules of a store',
    description: LIST_DESCRIPTION,
    query: {
      storeId: storeId(),
      search: listedRequired(text(1, 200)),
      cursor: listedRequired(cursor()),
      limit: listedRequired(positiveInt(100).default(50)),
    },
    response: SearchSynonymRuleListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listSynonyms(req.context, req.query as ListSynonymsQuery),
  },
  {
    operationId: 'searchSynonyms.create',
    method: 'POST',
    path: '/search-synonyms',
    summary: 'Create a synonym rule',
    description: CREATE_DESCRIPTION,
    body: CreateSearchSynonymRuleDto,
    response: SearchSynonymRuleResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, CreateSynonymInput>) => createSynonym(req.context, req.body),
  },
  {
    operationId: 'searchSynonyms.zeroResultQueries',
    method: 'GET',
    path: '/search-synonyms/zero-result-queries',
    summary: 'Storefront search queries of a store that returned no results, most frequent first',
    description: zeroResultQueriesDescription(ZERO_RESULT_LIST_CAP),
    query: { storeId: storeId() },
    status: 200,
    response: ZeroResultQueryListResponse,
    handler: (req: RouteRequest<Params>) => listZeroResultQueries(req.context, req.query.storeId!),
  },
  {
    operationId: 'searchSynonyms.weakResultQueries',
    method: 'GET',
    path: '/search-synonyms/weak-result-queries',
    summary: 'Storefront search queries of a store answered only loosely, most frequent first (extension)',
    description: weakResultQueriesDescription(ZERO_RESULT_LIST_CAP),
    query: { storeId: storeId() },
    status: 200,
    response: WeakResultQueryListResponse,
    handler: (req: RouteRequest<Params>) => listWeakResultQueries(req.context, req.query.storeId!),
  },
  {
    operationId: 'searchSynonyms.builtIn',
    method: 'GET',
    path: '/search-synonyms/built-in',
    summary: 'Built-in unit synonyms of a store, with the store rules that override them (extension)',
    description: BUILT_IN_DESCRIPTION,
    query: { storeId: storeId() },
    status: 200,
    response: BuiltInSynonymListResponse,
    handler: (req: RouteRequest<Params>) => listBuiltInSynonyms(req.context, req.query.storeId!),
  },
  {
    operationId: 'searchSynonyms.get',
    method: 'GET',
    path: '/search-synonyms/{id}',
    summary: 'One synonym rule',
    description: readers,
    response: SearchSynonymRuleResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getSynonym(req.context, req.params.id),
  },
  {
    operationId: 'searchSynonyms.update',
    method: 'PATCH',
    path: '/search-synonyms/{id}',
    summary: 'Update a synonym rule',
    description: UPDATE_DESCRIPTION,
    body: UpdateSearchSynonymRuleDto,
    response: SearchSynonymRuleResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, UpdateSynonymInput>) => updateSynonym(req.context, req.params.id, req.body),
  },
  {
    operationId: 'searchSynonyms.delete',
    method: 'DELETE',
    path: '/search-synonyms/{id}',
    summary: 'Delete a synonym rule',
    description: DELETE_DESCRIPTION,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteSynonym(req.context, req.params.id),
  },
]);
