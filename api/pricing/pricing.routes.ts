/** Price rules of a store and price computation (document 2, "Sponsored listings, pricing, flash sales, shipping"). */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { ComputeProductPriceDto, CreatePricingRuleDto, UpdatePricingRuleDto } from './pricing.schemas';

export const pricingRoutes = defineRoutes({ tag: 'pricing', auth: 'merchant' }, [
  { operationId: 'pricing.listRules', method: 'GET', path: '/pricing/rules', summary: 'Price rules of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'pricing.createRule', method: 'POST', path: '/pricing/rules', summary: 'Create a price rule', body: CreatePricingRuleDto, status: 201 },
  { operationId: 'pricing.updateRule', method: 'PATCH', path: '/pricing/rules/{id}', summary: 'Update a price rule', body: UpdatePricingRuleDto, status: 200 },
  { operationId: 'pricing.deleteRule', method: 'DELETE', path: '/pricing/rules/{id}', summary: 'Delete a price rule', status: 204 },
  { operationId: 'pricing.compute', method: 'POST', path: '/pricing/compute', summary: 'Compute the price of a product after the price rules', body: ComputeProductPriceDto, status: 200 },
]);
