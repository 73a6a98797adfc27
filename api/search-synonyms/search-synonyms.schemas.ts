/**
 * DTOs of the search synonyms area. One shape for both rule types:
 * - MULTI_WAY: `terms` (2..20 equivalent terms); `input` and `synonyms` are not allowed.
 * - ONE_WAY: `input` (the term shoppers type) and `synonyms` (1..20 terms it also matches); `terms` is not allowed.
 * Every term is 1..100 characters after trimming, stored lowercased, and unique within the rule.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto, type InputOf } from '../http/typed-schema';
import { bool } from '../http/schema-types';

export const SYNONYM_TYPES = ['MULTI_WAY', 'ONE_WAY'] as const;
export const SYNONYM_TERM_MAX = 100;
export const SYNONYM_TERMS_MAX = 20;

const term = (): Joi.StringSchema => Joi.string().trim().lowercase().min(1).max(SYNONYM_TERM_MAX);
const termList = (min: number): Joi.ArraySchema => Joi.array().items(term()).min(min).max(SYNONYM_TERMS_MAX).unique();
/** termList typed: the items go in through t.array. */
const typedTermList = (min: number, description: string) =>
  t.array(t.string(term()), Joi.array().min(min).max(SYNONYM_TERMS_MAX).unique().description(description));

export const CreateSearchSynonymRuleDto = typedDto(
  'CreateSearchSynonymRuleDto',
  t.object({
    storeId: t.storeId(),
    type: t.oneOf(SYNONYM_TYPES).required(),
    // Required or forbidden by type (`.when`): optional in the type, the service reads the one its type has.
    terms: t.custom<string[]>(
      termList(2)
        .when('type', { is: 'MULTI_WAY', then: Joi.required(), otherwise: Joi.forbidden() })
        .description('MULTI_WAY only: 2 to 20 equivalent terms.'),
    ),
    input: t.custom<string>(
      term()
        .when('type', { is: 'ONE_WAY', then: Joi.required(), otherwise: Joi.forbidden() })
        .description('ONE_WAY only: the term that also matches its synonyms.'),
    ),
    synonyms: t.custom<string[]>(
      termList(1)
        .when('type', { is: 'ONE_WAY', then: Joi.required(), otherwise: Joi.forbidden() })
        .description('ONE_WAY only: 1 to 20 terms the input also matches.'),
    ),
    isActive: t.boolean(bool()).default(true),
  }),
);

export const UpdateSearchSynonymRuleDto = typedDto(
  'UpdateSearchSynonymRuleDto',
  t
    .object({
      terms: typedTermList(2, 'MULTI_WAY rules only.'),
      input: t.string(term().description('ONE_WAY rules only.')),
      synonyms: typedTermList(1, 'ONE_WAY rules only.'),
      isActive: t.boolean(bool()),
    })
    .rules((o) => o.min(1)),
);

const RuleItem = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  type: Joi.string()
    .valid(...SYNONYM_TYPES)
    .required(),
  terms: Joi.array().items(Joi.string()).allow(null).required().description('MULTI_WAY: the equivalent terms; null for ONE_WAY.'),
  input: Joi.string().allow(null).required().description('ONE_WAY: the input term; null for MULTI_WAY.'),
  synonyms: Joi.array().items(Joi.string()).allow(null).required().description('ONE_WAY: the synonyms of input; null for MULTI_WAY.'),
  isActive: Joi.boolean().required(),
  createdAt: Joi.string().required(),
  updatedAt: Joi.string().required(),
});

export const SearchSynonymRuleResponse = dto('SearchSynonymRuleResponse', RuleItem);
export const SearchSynonymRuleListResponse = dto(
  'SearchSynonymRuleListResponse',
  Joi.object({ items: Joi.array().items(RuleItem).required(), nextCursor: Joi.string().allow(null).required() }),
);

const termArray = (description: string) => t.array(t.string(), Joi.array().description(description));

/** One built-in unit synonym rule of a store, with the store rules that replace it (search/unit-synonyms.ts). */
const BuiltInSynonymItem = t
  .object({
    type: t.oneOf(SYNONYM_TYPES).required(),
    terms: termArray('MULTI_WAY: the equivalent terms; null for ONE_WAY.').nullable().required(),
    input: t.string(Joi.string().description('ONE_WAY: the input term; null for MULTI_WAY.')).nullable().required(),
    synonyms: termArray('ONE_WAY: the terms the input also finds; null for MULTI_WAY.').nullable().required(),
    overriddenTerms: termArray(
      "The rule's terms (its MULTI_WAY terms, or its ONE_WAY input) whose built-in mapping a store rule replaces; empty when the whole rule is in force.",
    ).required(),
    overriddenBy: termArray(
      'The ids of the store rules (active or not) that replace it: each has one of overriddenTerms as its input or among its MULTI_WAY terms. Empty when the rule is in force.',
    ).required(),
  })
  .rules((o) => o.label('BuiltInSynonymRule'));

export const BuiltInSynonymListResponse = typedDto(
  'BuiltInSynonymListResponse',
  t.object({ items: t.array(BuiltInSynonymItem, Joi.array().description('Every built-in rule, in a fixed order.')).required() }),
);
export type BuiltInSynonymListView = InputOf<typeof BuiltInSynonymListResponse>;

/** One listed query of the zero-result or weak-result list (same fields; `counted` says what its count counts). */
const searchQueryItem = (label: string, counted: string): Joi.ObjectSchema =>
  Joi.object({
    query: Joi.string()
      .required()
      .description('The normalised query: NFKC, lowercase, whitespace collapsed, trimmed, at most 200 characters.'),
    sample: Joi.string().required().description('The last query as a shopper typed it.'),
    count: Joi.number().integer().min(1).required().description(counted),
    firstSeenAt: Joi.string().isoDate().required(),
    lastSeenAt: Joi.string().isoDate().required(),
    answeredNow: Joi.boolean()
      .allow(null)
      .required()
      .description(
        "Whether published products of the store's search index match every word of the query now, with the store's synonyms as they are (the strict pass of public search); false when the store has no index; null when the search engine cannot be reached.",
      ),
    answeredBy: Joi.string()
      .valid('SYNONYM', 'PRODUCT')
      .allow(null)
      .required()
      .description(
        'What answers it now, measured against the current index: PRODUCT when products match every word without the synonyms too; SYNONYM when they match only through a synonym rule (without the rules nothing is found); null when not answered (or answeredNow is null).',
      ),
    answeredLoosely: Joi.boolean()
      .allow(null)
      .required()
      .description(
        "True when the query is not answered strictly but one of the public search's looser readings (other word forms, fewer words) finds products: still a weak result. null when the search engine cannot be reached.",
      ),
  }).label(label);

const ZeroResultQuery = searchQueryItem('ZeroResultQuery', 'Public searches of this query that found nothing.');
const WeakResultQuery = searchQueryItem(
  'WeakResultQuery',
  'Public searches of this query whose results came only from a looser pass (fewer words, other word forms).',
);

export const ZeroResultQueryListResponse = dto(
  'ZeroResultQueryListResponse',
  Joi.object({ items: Joi.array().items(ZeroResultQuery).max(100).required() }),
);

export const WeakResultQueryListResponse = dto(
  'WeakResultQueryListResponse',
  Joi.object({ items: Joi.array().items(WeakResultQuery).max(100).required() }),
);
