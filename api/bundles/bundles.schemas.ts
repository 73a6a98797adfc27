/** DTOs of the bundles area. */
import { pendingDto } from '../http/route';

export const CreateBundleDto = pendingDto('CreateBundleDto');
export const UpdateBundleDto = pendingDto('UpdateBundleDto');
export const ComputeBundlePriceDto = pendingDto('ComputeBundlePriceDto');
