/** Price rules of a store and price computation (docs/commerce.md, "Pricing rules"). */
import { defineRoutes, pagedPlainList, type RouteRequest } from '../http/route';
import { int, storeId, uuid } from '../http/schema-types';
import {
  ComputedPriceResponse,
  ComputeProductPriceDto,
  CreatePricingRuleDto,
  PricingRuleListResponse,
  PricingRuleResponse,
  STACKING_POLICY,
  UpdatePricingRuleDto,
} from './pricing.schemas';
import {
  computePrices,
  createRule,
  deleteRule,
  listRules,
  updateRule,
  type ComputeInput,
  type CreateRuleInput,
  type ListRulesQuery,
  type UpdateRuleInput,
} from './pricing.service';
import {
  computeDescription,
  createRuleDescription,
  DELETE_RULE_DESCRIPTION,
  listRulesDescription,
  UPDATE_RULE_DESCRIPTION,
} from './pricing.descriptions';

type Params = Record<string, string>;

export const pricingRoutes = defineRoutes({ tag: 'pricing', auth: 'merchant' }, [
  {
    operationId: 'pricing.listRules',
    method: 'GET',
    path: '/pricing/rules',
    summary: 'Price rules of a store',
    description: listRulesDescription(pagedPlainList(50, 200)),
    query: {
      storeId: storeId(),
      cursor: uuid().description('The nextCursor of the previous page: the id of its last rule.'),
      limit: int(1, 200).default(50),
    },
    response: PricingRuleListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listRules(req.context, req.query as ListRulesQuery),
  },
  {
    operationId: 'pricing.createRule',
    method: 'POST',
    path: '/pricing/rules',
    summary: 'Create a price rule',
    description: createRuleDescription(STACKING_POLICY),
    body: CreatePricingRuleDto,
    response: PricingRuleResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, CreateRuleInput>) => createRule(req.context, req.body),
  },
  {
    operationId: 'pricing.updateRule',
    method: 'PATCH',
    path: '/pricing/rules/{id}',
    summary: 'Update a price rule',
    description: UPDATE_RULE_DESCRIPTION,
    body: UpdatePricingRuleDto,
    response: PricingRuleResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, UpdateRuleInput>) => updateRule(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'pricing.deleteRule',
    method: 'DELETE',
    path: '/pricing/rules/{id}',
    summary: 'Delete a price rule',
    description: DELETE_RULE_DESCRIPTION,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteRule(req.context, req.params.id!),
  },
  {
    operationId: 'pricing.compute',
    method: 'POST',
    path: '/pricing/compute',
    summary: 'Compute the price of a product after the price rules',
    description: computeDescription(STACKING_POLICY),
    body: ComputeProductPriceDto,
    response: ComputedPriceResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, ComputeInput>) => computePrices(req.context, req.body),
  },
]);
