/** Flash sale campaigns of a store (docs/commerce.md, "Flash sales"). */
import Joi from 'joi';
import { defineRoutes, pagedPlainList, type RouteRequest } from '../http/route';
import { int, oneOf, storeId, uuid } from '../http/schema-types';
import {
  CreateFlashSaleCampaignDto,
  FLASH_SALE_STATUSES,
  FlashSaleCampaignListResponse,
  FlashSaleCampaignResponse,
  PRECEDENCE,
  PublicFlashSaleCampaignListResponse,
  PublicFlashSaleCampaignResponse,
  UpdateFlashSaleCampaignDto,
} from './flash-sales.schemas';
import {
  archiveCampaign,
  createCampaign,
  getCampaign,
  listCampaigns,
  publicActive,
  publicBySlug,
  updateCampaign,
  type CreateCampaignInput,
  type ListCampaignsQuery,
  type UpdateCampaignInput,
} from './flash-sales.service';

type Params = Record<string, string>;

const PUBLIC =
  "No token. A store that does not exist or is archived answers 404 store_not_found. Prices (currency, price, salePrice, discountPercent of each product, and each category's discountPercent) are left out when the store does not show prices to this visitor (price visibility). Only published products and active categories are listed.";
const readers =
  "Any member of the tenant, or an API key of the store with flash-sale-campaigns:read. Another tenant's store or campaign answers 404.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with flash-sale-campaigns:write; an archived store answers 409 store_archived. Another tenant's store, campaign, product or category answers 404. Each write records one audit entry and one outbox row for the campaign; when the campaign is live (PUBLISHED and inside its window) before or after the write, the published products it reaches are queued for re-indexing at once. A PATCH that changes nothing writes nothing.";

export const flashSaleRoutes = defineRoutes({ tag: 'flash-sale-campaigns', auth: 'merchant' }, [
  {
    operationId: 'flashSales.publicActive',
    method: 'GET',
    path: '/flash-sale-campaigns/public/stores/{storeId}/active',
    summary: 'Flash sale campaigns of a store running now (storefront)',
    description: `${PUBLIC} The PUBLISHED campaigns whose window contains now, ending soonest first (at most 50), each with its products and their flash prices now (salePrice is the effective price: the normal price once a product is sold out). ${PRECEDENCE}`,
    auth: 'public',
    response: PublicFlashSaleCampaignListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => publicActive(req.context, req.params.storeId!),
  },
  {
    operationId: 'flashSales.publicBySlug',
    method: 'GET',
    path: '/flash-sale-campaigns/public/stores/{storeId}/by-slug/{slug}',
    summary: 'One published flash sale campaign by its slug (storefront)',
    description: `${PUBLIC} A PUBLISHED campaign that is UPCOMING (salePrice is the price it will have at the start) or RUNNING, slug compared case-insensitively; a draft, archived, ended or unknown campaign answers 404 flash_sale_not_found.`,
    auth: 'public',
    params: { slug: Joi.string().min(1).max(120).description('The campaign slug (case-insensitive).') },
    response: PublicFlashSaleCampaignResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => publicBySlug(req.context, req.params.storeId!, req.params.slug!),
  },
  {
    operationId: 'flashSales.list',
    method: 'GET',
    path: '/flash-sale-campaigns',
    summary: 'Flash sale campaigns of a store',
    description: `${readers} Newest first (ids are UUIDv7), archived ones included unless status filters them. ${pagedPlainList(50, 200)}`,
    query: {
      storeId: storeId(),
      cursor: uuid().description('The nextCursor of the previous page: the id of its last campaign.'),
      limit: int(1, 200).default(50),
      status: oneOf(FLASH_SALE_STATUSES).description('Only campaigns in this status.'),
    },
    response: FlashSaleCampaignListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listCampaigns(req.context, req.query as ListCampaignsQuery),
  },
  {
    operationId: 'flashSales.create',
    method: 'POST',
    path: '/flash-sale-campaigns',
    summary: 'Create a flash sale campaign',
    description: `${writers} endsAt not after startsAt, or not in the future, answers 400; a slug taken in the store 409 slug_taken. ${PRECEDENCE}`,
    body: CreateFlashSaleCampaignDto,
    response: FlashSaleCampaignResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, CreateCampaignInput>) => createCampaign(req.context, req.body),
  },
  {
    operationId: 'flashSales.get',
    method: 'GET',
    path: '/flash-sale-campaigns/{id}',
    summary: 'One flash sale campaign',
    description: `${readers} With its products (sold counts against caps) and categories; archived campaigns too.`,
    response: FlashSaleCampaignResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getCampaign(req.context, req.params.id!),
  },
  {
    operationId: 'flashSales.update',
    method: 'PATCH',
    path: '/flash-sale-campaigns/{id}',
    summary: 'Update a flash sale campaign',
    description: `${writers} Changes only the fields given; products and categories are replaced as lists (products that stay keep their soldCount). An archived campaign answers 409 flash_sale_archived.`,
    body: UpdateFlashSaleCampaignDto,
    response: FlashSaleCampaignResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, UpdateCampaignInput>) => updateCampaign(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'flashSales.archive',
    method: 'DELETE',
    path: '/flash-sale-campaigns/{id}',
    summary: 'Archive a flash sale campaign',
    description: `${writers} Archives the campaign (status ARCHIVED, archivedAt): its prices stop at once, it leaves the public reads, and it takes no more changes; answers 200 with the archived campaign. Archiving an archived campaign answers the same 200 and writes nothing. Its slug stays taken.`,
    response: FlashSaleCampaignResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => archiveCampaign(req.context, req.params.id!),
  },
]);
