/** DTOs of the pricing area (price rules). */
import { pendingDto } from '../http/route';

export const CreatePricingRuleDto = pendingDto('CreatePricingRuleDto');
export const UpdatePricingRuleDto = pendingDto('UpdatePricingRuleDto');
export const ComputeProductPriceDto = pendingDto('ComputeProductPriceDto');
