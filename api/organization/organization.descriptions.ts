/** The long descriptions of the organization route table (organization.routes.ts), kept out of its rows. */

export const members = 'Any member of the tenant; API keys cannot call it (403 api_key_not_allowed).';

export const admins = 'Owners and admins of the tenant (staff 403 insufficient_role; API keys 403 api_key_not_allowed). Audited.';

export const ONBOARDING_STATUS_DESCRIPTION = `${members} Computed from the data on every call. checkout_configured is done once a store has saved checkout settings with at least one payment provider enabled (PUT /checkout-settings); the defaults alone do not count.`;

export const CREATE_DEFAULT_STORE_DESCRIPTION = `${admins} Named after the tenant, with a free slug derived from the name and the tenant's currency and time zone; 409 default_store_exists when the tenant has a default store.`;

export const CREATE_STORE_DESCRIPTION = `${admins} The first store of a tenant (or the first after its default was archived) becomes the default. A taken slug answers 409 slug_taken, a reserved one 400 slug_reserved.`;

export const UPDATE_STORE_DESCRIPTION = `${admins} An archived store takes no changes (409 store_archived). isDefault: true moves the default to this store. A change of currency, defaultLocale or priceVisibility also writes one outbox row for the store (topic store.updated, queue index), so cached public search answers of the store are dropped.`;

export const ARCHIVE_STORE_DESCRIPTION = `${admins} The store keeps its data and slug and takes no further changes; archiving it again changes nothing. The default store cannot be archived while other active stores exist (409 default_store_in_use); move the default first.`;

export const CHECK_SLUG_DESCRIPTION =
  'slug is the subject of the check, not a list filter, so it stays required; any string of 1 to 200 characters is accepted and the answer says whether it is well-formed and free (reason invalid, reserved or taken), with a free suggestion when it is not. Slugs are compared case-insensitively. Limited to 300 checks a minute per client address (429 with Retry-After).';
