/**
 * The storefront filter configuration of a store: which facets the storefront shows, in which order,
 * with which label and display, and the price buckets of the price facet. A store that never saved
 * one uses DEFAULT_FILTER_CONFIG. Saving replaces the whole configuration; a save that changes
 * nothing writes nothing, otherwise one audit entry (`filter_config.update`) and one outbox row
 * (queue `index`, aggregate `store`, topic `filter_config.updated`) in the transaction of the change.
 * The first save always writes, even when it equals the default: it pins the configuration.
 */
import { isDeepStrictEqual } from 'node:util';
import { FilterConfig } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { enqueueOutbox } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { requireStore } from '../../domain/store-access';
import { DEFAULT_FILTER_CONFIG, withPositions, type Facet, type PriceBucket } from '../../domain/filter-config';
import type { UpdateFilterConfigDto } from './filter-config.schemas';
import type { InputOf } from '../http/typed-schema';

export interface FilterConfigView {
  storeId: string;
  facets: Facet[];
  priceBuckets: PriceBucket[];
  updatedAt: string | null;
}

export type UpdateFilterConfigInput = InputOf<typeof UpdateFilterConfigDto>;

function view(storeId: string, saved: FilterConfig | null): FilterConfigView {
  if (!saved)
    return {
      storeId,
      facets: DEFAULT_FILTER_CONFIG.facets.map((f) => ({ ...f })),
      priceBuckets: DEFAULT_FILTER_CONFIG.priceBuckets.map((b) => ({ ...b })),
      updatedAt: null,
    };
  return {
    storeId,
    facets: saved.facets as Facet[],
    priceBuckets: saved.priceBuckets as PriceBucket[],
    updatedAt: saved.updatedAt.toISOString(),
  };
}

export async function getFilterConfig(ctx: RequestContext, storeId: string): Promise<FilterConfigView> {
  const store = await requireStore(ctx, storeId);
  return view(store.id, await tenantRepository(ctx, FilterConfig).findOneBy({ storeId: store.id }));
}

export async function updateFilterConfig(ctx: RequestContext, storeId: string, input: UpdateFilterConfigInput): Promise<FilterConfigView> {
  return inTransaction(ctx, async (tx) => {
    // Locking the store serialises saves of one store, so the first save cannot race another insert.
    const store = await requireStore(tx, storeId, { forWrite: true, lock: true });
    const configs = tenantRepository(tx, FilterConfig);
    const saved = await configs.findOneBy({ storeId: store.id });
    const facets = withPositions(input.facets);
    const priceBuckets = input.priceBuckets.map((b) =>
      b.label === undefined ? { min: b.min, max: b.max } : { min: b.min, max: b.max, label: b.label },
    );
    if (saved && isDeepStrictEqual(saved.facets, facets) && isDeepStrictEqual(saved.priceBuckets, priceBuckets))
      return view(store.id, saved);

    const updatedAt = new Date();
    if (saved) await configs.update({ storeId: store.id }, { facets, priceBuckets, updatedAt });
    else await configs.save(configs.create({ storeId: store.id, facets, priceBuckets, updatedAt }));
    await recordAudit(tx, {
      action: 'filter_config.update',
      resourceType: 'filter_config',
      resourceId: store.id,
      before: saved ? { facets: saved.facets, priceBuckets: saved.priceBuckets } : null,
      after: { facets, priceBuckets },
    });
    await enqueueOutbox(tx, { queue: 'index', topic: 'filter_config.updated', aggregateType: 'store', aggregateId: store.id });
    return view(store.id, await configs.getOneBy({ storeId: store.id }));
  });
}
