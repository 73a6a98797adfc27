/** DTOs and enums of the sponsored listings area. */
import { pendingDto } from '../http/route';

/** Document 1, "Enumerated values": sponsored listing status. */
export const SPONSORED_LISTING_STATUSES = ['ACTIVE', 'PAUSED', 'ENDED'] as const;

export const CreateSponsoredListingDto = pendingDto('CreateSponsoredListingDto');
export const UpdateSponsoredListingDto = pendingDto('UpdateSponsoredListingDto');
export const TrackSponsoredClickDto = pendingDto('TrackSponsoredClickDto');
