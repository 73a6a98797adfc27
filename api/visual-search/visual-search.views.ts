/** What the visual search operations answer (visual-search.schemas.ts). */
import type { VisualModel } from '../../storage/entities/product-image-vector.entity';
import type { VisualHit } from '../../vision/query';

/** A store's settings (VisualSearchSettingsResponse). */
export interface VisualSearchSettingsView {
  storeId: string;
  enabled: boolean;
  model: VisualModel;
  dimensions: number;
  textQueries: boolean;
  minSimilarity: number;
  maxResults: number;
  /** Written as an ISO 8601 string in the JSON answer. */
  updatedAt: Date;
}

/** IndexRequestResponse. */
export interface IndexRequestView {
  storeId: string;
  queued: number;
  model: VisualModel;
}

/** An image the worker could not embed. Dates are written as ISO 8601 strings in the JSON answer. */
export interface IndexFailureView {
  productId: string;
  imageUrl: string | null;
  reason: string;
  attempts: number;
  updatedAt: Date;
}

/** IndexStatusResponse. Dates are written as ISO 8601 strings in the JSON answer. */
export interface IndexStatusView {
  storeId: string;
  enabled: boolean;
  model: VisualModel;
  dimensions: number;
  counts: { products: number; withImage: number; indexed: number; pending: number; failed: number };
  failures: IndexFailureView[];
  lastRequestedAt: Date | null;
  lastIndexedAt: Date | null;
}

/** ClearIndexResponse. */
export interface ClearIndexView {
  storeId: string;
  cleared: number;
}

/** A result: price and currency are left out of the public query when the visitor may not see prices. */
export type VisualResultItemView = Omit<VisualHit, 'price' | 'currency'> & Partial<Pick<VisualHit, 'price' | 'currency'>>;

/** VisualSearchResults; pricesShown and ignoredParams only in the public query. */
export interface VisualSearchResultsView {
  items: VisualResultItemView[];
  model: VisualModel;
  tookMs: number;
  pricesShown?: boolean;
  ignoredParams?: Array<'minPrice' | 'maxPrice'>;
}
