/** Sponsored listings: paid placement of products in storefront results (docs/commerce.md, "Sponsored listings"). */
import { AcceptedResponse } from '../auth/auth.schemas';
import { defineRoutes, type RouteRequest } from '../http/route';
import { int, oneOf, storeId, uuid } from '../http/schema-types';
import {
  CreateSponsoredListingDto,
  SPONSORED_LISTING_STATUSES,
  SponsoredListingListResponse,
  SponsoredListingResponse,
  TrackSponsoredClickDto,
  UpdateSponsoredListingDto,
} from './sponsored-listings.schemas';
import {
  createListing,
  deleteListing,
  listListings,
  trackClick,
  updateListing,
  type CreateListingInput,
  type ListListingsQuery,
  type TrackClickInput,
  type UpdateListingInput,
} from './sponsored-listings.service';
import {
  CREATE_DESCRIPTION,
  DELETE_DESCRIPTION,
  LIST_DESCRIPTION,
  TRACK_CLICK_DESCRIPTION,
  UPDATE_DESCRIPTION,
} from './sponsored-listings.descriptions';

type Params = Record<string, string>;

export const sponsoredListingRoutes = defineRoutes({ tag: 'sponsored-listings', auth: 'merchant' }, [
  {
    operationId: 'sponsoredListings.list',
    method: 'GET',
    path: '/merchant/sponsored-listings',
    summary: 'Sponsored listings of a store, newest first',
    description: LIST_DESCRIPTION,
    query: {
      storeId: storeId(),
      cursor: uuid().description('The nextCursor of the previous page: the id of its last listing.'),
      limit: int(1, 200).default(50),
      status: oneOf(SPONSORED_LISTING_STATUSES),
    },
    response: SponsoredListingListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listListings(req.context, req.query as ListListingsQuery),
  },
  {
    operationId: 'sponsoredListings.create',
    method: 'POST',
    path: '/merchant/sponsored-listings',
    summary: 'Create a sponsored listing',
    description: CREATE_DESCRIPTION,
    body: CreateSponsoredListingDto,
    response: SponsoredListingResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, CreateListingInput>) => createListing(req.context, req.body),
  },
  {
    operationId: 'sponsoredListings.update',
    method: 'PATCH',
    path: '/merchant/sponsored-listings/{id}',
    summary: 'Update a sponsored listing',
    description: UPDATE_DESCRIPTION,
    body: UpdateSponsoredListingDto,
    response: SponsoredListingResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, UpdateListingInput>) => updateListing(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'sponsoredListings.delete',
    method: 'DELETE',
    path: '/merchant/sponsored-listings/{id}',
    summary: 'Delete a sponsored listing',
    description: DELETE_DESCRIPTION,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteListing(req.context, req.params.id!),
  },
  {
    operationId: 'sponsoredListings.trackClick',
    method: 'POST',
    path: '/storefront/sponsored-listings/click',
    summary: 'Record a visitor click on a sponsored listing',
    description: TRACK_CLICK_DESCRIPTION,
    auth: 'public',
    body: TrackSponsoredClickDto,
    response: AcceptedResponse,
    status: 202,
    handler: async (req: RouteRequest<Params, Params, TrackClickInput>) => {
      await trackClick(req.context, req.body);
      return { accepted: true };
    },
  },
]);
