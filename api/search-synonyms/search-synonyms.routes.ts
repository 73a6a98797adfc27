/** Search synonym rules of a store and the queries that found nothing (docs/search.md, "Search index" and "Zero-result queries"). */
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { cursor, positiveInt, storeId, text } from '../http/schema-types';
import {
  CreateSearchSynonymRuleDto,
  SearchSynonymRuleListResponse,
  SearchSynonymRuleResponse,
  UpdateSearchSynonymRuleDto,
  ZeroResultQueryListResponse,
} from './search-synonyms.schemas';
import { listZeroResultQueries, ZERO_RESULT_LIST_CAP } from './zero-result-queries.service';
import {
  createSynonym,
  deleteSynonym,
  getSynonym,
  listSynonyms,
  updateSynonym,
  type CreateSynonymInput,
  type ListSynonymsQuery,
  type UpdateSynonymInput,
} from './search-synonyms.service';

type Params = Record<string, string>;

const readers =
  "Any member of the tenant, or an API key of the store with search-synonyms:read. Another tenant's store or rule answers 404.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with search-synonyms:write; an archived store answers 409 store_archived. Another tenant's store or rule answers 404. Each write records one audit entry and two outbox rows: one for the rule (aggregate search_synonym) and one for the store (topic search_synonyms.updated) so the store's index settings are re-applied within seconds; a PATCH that changes nothing writes neither.";
const shape =
  'A rule is MULTI_WAY (terms: 2 to 20 equivalent terms; each one finds what any of the others finds) or ONE_WAY (input: one term, synonyms: 1 to 20 terms; a search for input also finds the synonyms, not the reverse). Every term is 1 to 100 characters after trimming, stored lowercased, and unique within the rule (a ONE_WAY input cannot be one of its synonyms); terms not allowed for the type answer 400. Only active rules (isActive, default true) are applied. Multi-word terms are allowed: Meilisearch supports multi-word synonyms and matches them on the whole phrase, after normalising case, accents and separators, so a rule ["tv", "television set"] makes "tv" find documents containing the phrase "television set" and "television set" find "tv"; a single word of a multi-word term ("set" alone) does not trigger the rule.';

export const searchSynonymRoutes = defineRoutes({ tag: 'search-synonyms', auth: 'merchant' }, [
  {
    operationId: 'searchSynonyms.list',
    method: 'GET',
    path: '/search-synonyms',
    summary: 'Synonym rules of a store',
    description: `${readers} search, cursor and limit are not typed by the specification: search is 1 to 200 characters (case-insensitive substring of the input or any term), cursor the opaque nextCursor of the previous page, limit 1 to 100 (default 50). Rules in creation order (UUIDv7). ${shape}`,
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
    description: `${writers} ${shape}`,
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
    description: `${readers} Every public search with a non-empty query that ends with no results (after the looser passes) is counted per store and normalised query (NFKC, lowercase, whitespace collapsed, trimmed, at most 200 characters); sample is the last query as typed. The list is not paged: the ${ZERO_RESULT_LIST_CAP} most frequent queries, most frequent first, then most recently seen. answeredNow says whether the query finds a published product now (one search per query in the store's index with the loosest matching of public search, fewer words allowed; a store without an index answers false; null when the search engine cannot be reached). answeredBy is SYNONYM when an active synonym rule of the store created or updated after the query was last seen contains one of the query's words as its input or a term (or a word of a multi-word term), otherwise PRODUCT when answered, null when not answered.`,
    query: { storeId: storeId() },
    status: 200,
    response: ZeroResultQueryListResponse,
    handler: (req: RouteRequest<Params>) => listZeroResultQueries(req.context, req.query.storeId!),
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
    description: `${writers} Changes only the fields given; the type cannot change (terms for MULTI_WAY; input and synonyms for ONE_WAY; isActive for both). ${shape}`,
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
    description: writers,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteSynonym(req.context, req.params.id),
  },
]);
