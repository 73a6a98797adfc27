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

type Params = Record<string, string>;

const readers =
  "Any member of the tenant, or an API key of the store with pricing:read. Another tenant's store answers 404 store_not_found.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with pricing:write; an archived store answers 409 store_archived. Another tenant's store or rule answers 404. Each write records one audit entry and one outbox row for the rule; when it changes a price anyone sees now (a rule without customer groups whose window contains now, before or after the write) the published products the rule reaches are queued for re-indexing, so the search index's effective price, `discounted` and the `discount` sort follow. Windows that open or close later re-index their products at that moment (the jobs role's pricing scheduler). A PATCH that changes nothing writes nothing.";

export const pricingRoutes = defineRoutes({ tag: 'pricing', auth: 'merchant' }, [
  {
    operationId: 'pricing.listRules',
    method: 'GET',
    path: '/pricing/rules',
    summary: 'Price rules of a store',
    description: `${readers} Newest first (ids are UUIDv7). ${pagedPlainList(50, 200)} Each rule says its state now (ACTIVE, SCHEDULED, EXPIRED, INACTIVE).`,
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
    description: `${writers} A target that is not the store's answers 404 target_not_found; a PERCENT value (or tier value) above 100 or with more than 2 decimals, targetIds with scope ALL or none with another scope, and endsAt not after startsAt answer 400. ${STACKING_POLICY}`,
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
    description: `${writers} Changes only the fields given; the result is checked as a whole like a new rule. Changing the scope without targetIds clears them (so ALL needs nothing more, other scopes need their targetIds: 400).`,
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
    description: `${writers} Deletes the rule; prices it set return to what the other rules give.`,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteRule(req.context, req.params.id!),
  },
  {
    operationId: 'pricing.compute',
    method: 'POST',
    path: '/pricing/compute',
    summary: 'Compute the price of a product after the price rules',
    description: `Any member of the tenant, or an API key of the store with pricing:write (it is a POST; it writes nothing). Another tenant's store answers 404 store_not_found; a product or variant that is not the store's answers 404 product_not_found / variant_not_found (the field error names the item); a customerId not of the store 404 customer_not_found; products in different currencies 400 mixed_currencies. For each line: the base unit price, the final unit price, the line total and every rule applied with the amount it took off one unit, in order (or the flash sale that set the price); then totals. The same engine prices orders and the search index's effective price (public: no customer group, quantity 1). ${STACKING_POLICY}`,
    body: ComputeProductPriceDto,
    response: ComputedPriceResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, ComputeInput>) => computePrices(req.context, req.body),
  },
]);
