/** Sponsored listings: paid placement of products in storefront results (document 2, "Sponsored listings, pricing, flash sales, shipping"). */
import { defineRoutes } from '../http/route';
import { int, oneOf, storeId, uuid } from '../http/schema-types';
import { CreateSponsoredListingDto, SPONSORED_LISTING_STATUSES, TrackSponsoredClickDto, UpdateSponsoredListingDto } from './sponsored-listings.schemas';

export const sponsoredListingRoutes = defineRoutes({ tag: 'sponsored-listings', auth: 'merchant' }, [
  {
    operationId: 'sponsoredListings.list',
    method: 'GET',
    path: '/merchant/sponsored-listings',
    summary: 'Sponsored listings of a store, newest first',
    query: {
      storeId: storeId(),
      cursor: uuid(),
      limit: int(1, 200).default(50),
      status: oneOf(SPONSORED_LISTING_STATUSES),
    },
    status: 200,
  },
  { operationId: 'sponsoredListings.create', method: 'POST', path: '/merchant/sponsored-listings', summary: 'Create a sponsored listing', body: CreateSponsoredListingDto, status: 201 },
  { operationId: 'sponsoredListings.update', method: 'PATCH', path: '/merchant/sponsored-listings/{id}', summary: 'Update a sponsored listing', body: UpdateSponsoredListingDto, status: 200 },
  { operationId: 'sponsoredListings.delete', method: 'DELETE', path: '/merchant/sponsored-listings/{id}', summary: 'Delete a sponsored listing', status: 204 },
  {
    operationId: 'sponsoredListings.trackClick',
    method: 'POST',
    path: '/storefront/sponsored-listings/click',
    summary: 'Record a visitor click on a sponsored listing',
    auth: 'public',
    body: TrackSponsoredClickDto,
    status: 202,
  },
]);
