/**
 * Search synonym rules of a store. Every write records one audit entry (`search_synonym.create|update|delete`)
 * and, in the same transaction, one outbox row for the rule (aggregate `search_synonym`) and one for the
 * store (topic `search_synonyms.updated`, aggregate `store`) so the index consumer re-applies the store's
 * index settings, whose synonyms come from the store's active rules (search/index-settings.ts).
 */
import { SearchSynonym } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { UUID_PATTERN } from '../http/schema-types';
import { requireStore } from '../../domain/store-access';
import { searchSynonymsError } from './search-synonyms.errors';
import type { BuiltInSynonymListView, CreateSearchSynonymRuleDto, UpdateSearchSynonymRuleDto } from './search-synonyms.schemas';
import { builtInSynonymStates } from '../../search/unit-synonyms';
import type { InputOf } from '../http/typed-schema';

export type SynonymType = 'MULTI_WAY' | 'ONE_WAY';

export interface SearchSynonymView {
  id: string;
  storeId: string;
  type: SynonymType;
  terms: string[] | null;
  input: string | null;
  synonyms: string[] | null;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export function synonymView(rule: SearchSynonym): SearchSynonymView {
  const multi = rule.type === 'MULTI_WAY';
  return {
    id: rule.id,
    storeId: rule.storeId,
    type: rule.type,
    terms: multi ? rule.terms : null,
    input: multi ? null : rule.input,
    synonyms: multi ? null : rule.terms,
    isActive: rule.isActive,
    createdAt: rule.createdAt.toISOString(),
    updatedAt: rule.updatedAt.toISOString(),
  };
}

const notFound = (): NotFoundError => searchSynonymsError('search_synonym_not_found', 'The synonym rule does not exist.');

const events = (rule: SearchSynonym, verb: 'created' | 'updated' | 'deleted'): OutboxEvent[] => [
  { queue: 'index', topic: `search_synonym.${verb}`, aggregateType: 'search_synonym', aggregateId: rule.id },
  { queue: 'index', topic: 'search_synonyms.updated', aggregateType: 'store', aggregateId: rule.storeId },
];

const fields = (rule: Pick<SearchSynonym, 'type' | 'input' | 'terms' | 'isActive'>): Record<string, unknown> => ({
  type: rule.type,
  input: rule.input,
  terms: rule.terms,
  isActive: rule.isActive,
});

export interface ListSynonymsQuery {
  storeId: string;
  search?: string;
  cursor?: string;
  limit: number;
}

export async function listSynonyms(
  ctx: RequestContext,
  query: ListSynonymsQuery,
): Promise<{ items: SearchSynonymView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  if (query.cursor !== undefined && !UUID_PATTERN.test(query.cursor))
    throw searchSynonymsError('invalid_cursor', 'The cursor is not valid.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);
  const qb = tenantRepository(ctx, SearchSynonym).createQueryBuilder('s').andWhere('s.storeId = :storeId', { storeId: store.id });
  if (query.search !== undefined) {
    const like = `%${query.search
      .trim()
      .toLowerCase()
      .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    qb.andWhere('(s.input LIKE :like OR EXISTS (SELECT 1 FROM unnest(s.terms) t WHERE t LIKE :like))', { like });
  }
  if (query.cursor !== undefined) qb.andWhere('s.id > :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('s.id', 'ASC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: page.map(synonymView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

/**
 * The built-in unit synonyms every store's index gets, each with the ids of the store's rules (active
 * or not) that replace it: a rule replaces the built-in mapping of every term it maps from.
 */
export async function listBuiltInSynonyms(ctx: RequestContext, storeId: string): Promise<BuiltInSynonymListView> {
  const store = await requireStore(ctx, storeId);
  const rules = await tenantRepository(ctx, SearchSynonym).find({ where: { storeId: store.id }, order: { id: 'ASC' } });
  return {
    items: builtInSynonymStates(rules).map(({ rule, overriddenTerms, overriddenBy }) => ({
      type: rule.type,
      terms: rule.type === 'MULTI_WAY' ? [...rule.terms] : null,
      input: rule.type === 'ONE_WAY' ? rule.input : null,
      synonyms: rule.type === 'ONE_WAY' ? [...rule.synonyms] : null,
      overriddenTerms,
      overriddenBy,
    })),
  };
}

export type CreateSynonymInput = InputOf<typeof CreateSearchSynonymRuleDto>;

function checkOneWay(input: string, synonyms: string[]): void {
  if (synonyms.includes(input))
    throw new ValidationError('The input cannot be one of its synonyms.', [
      { path: 'body.synonyms', message: 'synonyms must not contain the input' },
    ]);
}

export async function createSynonym(ctx: RequestContext, body: CreateSynonymInput): Promise<SearchSynonymView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, body.storeId, { forWrite: true });
    const input = body.type === 'ONE_WAY' ? body.input! : null;
    const terms = body.type === 'ONE_WAY' ? body.synonyms! : body.terms!;
    if (input !== null) checkOneWay(input, terms);
    const now = new Date();
    const rule = tenantRepository(tx, SearchSynonym).create({
      id: uuidv7(),
      storeId: store.id,
      type: body.type,
      input,
      terms,
      isActive: body.isActive,
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(SearchSynonym, rule);
    await recordAudit(tx, {
      action: 'search_synonym.create',
      resourceType: 'search_synonym',
      resourceId: rule.id,
      after: { storeId: store.id, ...fields(rule) },
    });
    await enqueueOutbox(tx, events(rule, 'created'));
    return synonymView(rule);
  });
}

async function load(ctx: RequestContext, id: string, forWrite: boolean): Promise<SearchSynonym> {
  const rule = await tenantRepository(ctx, SearchSynonym, notFound).findOne({
    where: { id },
    ...(forWrite ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!rule) throw notFound();
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== rule.storeId) throw notFound();
  await requireStore(ctx, rule.storeId, forWrite ? { forWrite: true } : undefined);
  return rule;
}

export async function getSynonym(ctx: RequestContext, id: string): Promise<SearchSynonymView> {
  return synonymView(await load(ctx, id, false));
}

export type UpdateSynonymInput = InputOf<typeof UpdateSearchSynonymRuleDto>;

export async function updateSynonym(ctx: RequestContext, id: string, body: UpdateSynonymInput): Promise<SearchSynonymView> {
  return inTransaction(ctx, async (tx) => {
    const rule = await load(tx, id, true);
    const wrong = rule.type === 'MULTI_WAY' ? (['input', 'synonyms'] as const) : (['terms'] as const);
    const misplaced = wrong.filter((k) => body[k] !== undefined);
    if (misplaced.length > 0)
      throw new ValidationError(
        `A ${rule.type} rule has no ${misplaced.join(' or ')}.`,
        misplaced.map((k) => ({ path: `body.${k}`, message: `not allowed for a ${rule.type} rule` })),
      );
    const next = {
      type: rule.type,
      input: rule.type === 'ONE_WAY' ? (body.input ?? rule.input) : null,
      terms: (rule.type === 'ONE_WAY' ? body.synonyms : body.terms) ?? rule.terms,
      isActive: body.isActive ?? rule.isActive,
    };
    if (next.input !== null) checkOneWay(next.input, next.terms);
    const before = fields(rule);
    const after = fields(next);
    if (JSON.stringify(before) === JSON.stringify(after)) return synonymView(rule);
    const updatedAt = new Date();
    await tenantRepository(tx, SearchSynonym).update(
      { id: rule.id },
      { input: next.input, terms: next.terms, isActive: next.isActive, updatedAt },
    );
    await recordAudit(tx, { action: 'search_synonym.update', resourceType: 'search_synonym', resourceId: rule.id, before, after });
    await enqueueOutbox(tx, events(rule, 'updated'));
    return synonymView({ ...rule, ...next, updatedAt });
  });
}

export async function deleteSynonym(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const rule = await load(tx, id, true);
    await tenantRepository(tx, SearchSynonym).delete({ id: rule.id });
    await recordAudit(tx, {
      action: 'search_synonym.delete',
      resourceType: 'search_synonym',
      resourceId: rule.id,
      before: { storeId: rule.storeId, ...fields(rule) },
    });
    await enqueueOutbox(tx, events(rule, 'deleted'));
  });
}
