/** Search synonym rules of a store and the queries that found nothing (document 2, "Brands, bundles, synonyms, visual search"). */
import { defineRoutes, listedRequired } from '../http/route';
import { cursor, positiveInt, storeId, text } from '../http/schema-types';
import { CreateSearchSynonymRuleDto, UpdateSearchSynonymRuleDto } from './search-synonyms.schemas';

export const searchSynonymRoutes = defineRoutes({ tag: 'search-synonyms', auth: 'merchant' }, [
  {
    operationId: 'searchSynonyms.list',
    method: 'GET',
    path: '/search-synonyms',
    summary: 'Synonym rules of a store',
    description: 'search, cursor and limit are not typed by the specification: search is 1 to 200 characters, cursor the opaque nextCursor of the previous page, limit 1 to 100 (default 50).',
    query: {
      storeId: storeId(),
      search: listedRequired(text(1, 200)),
      cursor: listedRequired(cursor()),
      limit: listedRequired(positiveInt(100).default(50)),
    },
    status: 200,
  },
  { operationId: 'searchSynonyms.create', method: 'POST', path: '/search-synonyms', summary: 'Create a synonym rule', body: CreateSearchSynonymRuleDto, status: 201 },
  {
    operationId: 'searchSynonyms.zeroResultQueries',
    method: 'GET',
    path: '/search-synonyms/zero-result-queries',
    summary: 'Storefront search queries of a store that returned no results, most frequent first',
    query: { storeId: storeId() },
    status: 200,
  },
  { operationId: 'searchSynonyms.get', method: 'GET', path: '/search-synonyms/{id}', summary: 'One synonym rule', status: 200 },
  { operationId: 'searchSynonyms.update', method: 'PATCH', path: '/search-synonyms/{id}', summary: 'Update a synonym rule', body: UpdateSearchSynonymRuleDto, status: 200 },
  { operationId: 'searchSynonyms.delete', method: 'DELETE', path: '/search-synonyms/{id}', summary: 'Delete a synonym rule', status: 204 },
]);
