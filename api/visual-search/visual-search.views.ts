/** What the visual search operations answer (visual-search.schemas.ts). */
import type { SameCategoryMode, VisualModel } from '../../storage/entities/product-image-vector.entity';
import type { SimilarTier, VisualHit } from '../../vision/query';

/** A store's settings (VisualSearchSettingsResponse). */
export interface VisualSearchSettingsView {
  storeId: string;
  enabled: boolean;
  model: VisualModel;
  dimensions: number;
  textQueries: boolean;
  minSimilarity: number;
  maxResults: number;
  sameCategory: SameCategoryMode;
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
  sameCategory: SameCategoryMode;
  calibration: CalibrationView | null;
}

/** CalibrationResponse: the store's score calibration (vision/calibration.ts). Dates are written as ISO 8601 strings. */
export interface CalibrationView {
  model: VisualModel;
  dimensions: number;
  vectors: number;
  sampleSize: number;
  goodMatchScore: number;
  knots: number[];
  computedAt: Date;
  stale: boolean;
}

/** ClearIndexResponse. */
export interface ClearIndexView {
  storeId: string;
  cleared: number;
}

/** What calibration adds to every result (vision/calibration.ts). */
export interface CalibratedFields {
  calibratedScore: number | null;
  goodMatch: boolean;
}

/**
 * A result: price and currency are left out of the public reads when the visitor may not see prices;
 * tier only in similar-product reads.
 */
export type VisualResultItemView = Omit<VisualHit, 'price' | 'currency'> &
  Partial<Pick<VisualHit, 'price' | 'currency'>> &
  CalibratedFields & { tier?: SimilarTier };

/** VisualSearchResults; pricesShown and ignoredParams only in the public reads, sameCategory only in similar-product reads. */
export interface VisualSearchResultsView {
  items: VisualResultItemView[];
  model: VisualModel;
  calibrated: boolean;
  sameCategory?: SameCategoryMode;
  tookMs: number;
  pricesShown?: boolean;
  ignoredParams?: Array<'minPrice' | 'maxPrice'>;
}
