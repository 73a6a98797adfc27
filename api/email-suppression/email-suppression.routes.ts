/**
 * E-mail suppression entries: addresses that must not be e-mailed (docs/messaging.md, "Suppression").
 * Tenant members read and record their stores' entries; platform staff (platform_admin,
 * support_agent) record platform-wide ones. The unsubscribe page of marketing mail is public.
 */
import Joi from 'joi';
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { bool, positiveInt, storeId } from '../http/schema-types';
import { RecordSuppressionDto, UnsubscribeFormDto, type RecordSuppressionInput } from './email-suppression.schemas';
import {
  SuppressionCheckResponse,
  SuppressionEntryListResponse,
  SuppressionEntryResponse,
  SuppressionOverviewResponse,
  UnsubscribePage,
} from './email-suppression.responses';
import {
  checkSuppression,
  listSuppressionEntries,
  recordSuppression,
  suppressionOverview,
  unsubscribe,
  unsubscribePage,
  type ListSuppressionQuery,
} from './email-suppression.service';

type Params = Record<string, string>;

const LIST_DESCRIPTION =
  "The store's entries, newest first. The specification does not type these parameters: emailDomain is a domain name (at most 253 characters); emailHash is the 64 hexadecimal characters of a SHA-256 hash of the address (trimmed, lower-cased); appliesPlatform is true or false: false (or left out) lists the store's own entries, true lists the platform-wide entries instead and then needs emailHash (the platform list is looked up by an address the caller knows, never browsed); limit is 1 to 100, default 50. Only hashes and domains are kept, never addresses.";
const RECORD_DESCRIPTION =
  "Records an entry. A tenant member names one of the tenant's stores (storeId); platform staff (platform_admin or support_agent) who are no tenant member leave storeId out and record a platform-wide entry (403 platform_suppression_forbidden otherwise). Only the SHA-256 hash of the normalised address and its domain are kept. 409 suppression_entry_exists when the address is already suppressed there.";
const CHECK_DESCRIPTION =
  "Whether the address is suppressed platform-wide or for one of the caller's stores (a store API key: its own store); other tenants' entries are never revealed. Only email is accepted: the specification lists `email (r, string)` and is cut off after it, so any further parameters are unknown and rejected. email is required because it is the subject of the check; it must be an e-mail address of at most 254 characters.";

export const emailSuppressionRoutes = defineRoutes({ tag: 'email-suppression-entries', auth: 'merchant' }, [
  {
    operationId: 'emailSuppression.list',
    method: 'GET',
    path: '/email-suppression-entries',
    summary: 'Suppression entries of a store',
    description: LIST_DESCRIPTION,
    query: {
      storeId: storeId(),
      emailDomain: listedRequired(Joi.string().domain({ tlds: false }).max(253)),
      emailHash: listedRequired(Joi.string().hex().length(64)),
      appliesPlatform: listedRequired(bool()),
      limit: listedRequired(positiveInt(100).default(50)),
    },
    response: SuppressionEntryListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listSuppressionEntries(req.context, req.query as ListSuppressionQuery),
  },
  {
    operationId: 'emailSuppression.record',
    method: 'POST',
    path: '/email-suppression-entries',
    summary: 'Suppress an e-mail address',
    description: RECORD_DESCRIPTION,
    auth: 'merchant_or_platform',
    platformRoles: ['platform_admin', 'support_agent'],
    body: RecordSuppressionDto,
    response: SuppressionEntryResponse,
    status: 201,
    problems: [403, 404, 409],
    handler: (req: RouteRequest<Params, Params, RecordSuppressionInput>) => recordSuppression(req.context, req.body),
  },
  {
    operationId: 'emailSuppression.storeOverview',
    method: 'GET',
    path: '/email-suppression-entries/store-overview',
    summary: "Overview of a store's suppression entries",
    description: "Counts of the store's entries recorded in the last 30 days, by reason, and the count of all its entries.",
    query: { storeId: storeId() },
    response: SuppressionOverviewResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => suppressionOverview(req.context, req.query.storeId!),
  },
  {
    operationId: 'emailSuppression.check',
    method: 'GET',
    path: '/email-suppression-entries/check',
    summary: 'Whether an e-mail address is suppressed',
    description: CHECK_DESCRIPTION,
    query: { email: Joi.string().email({ tlds: false }).max(254).required() },
    response: SuppressionCheckResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => checkSuppression(req.context, req.query.email!),
  },
  {
    operationId: 'emailSuppression.unsubscribePage',
    method: 'GET',
    path: '/email-suppression-entries/public/unsubscribe',
    summary: 'The unsubscribe page of a marketing e-mail',
    description:
      'Extension. The page the unsubscribe link of a marketing e-mail opens (storage/customer-messages.ts unsubscribeUrl): a confirmation form, so that opening the link alone (a mail scanner) changes nothing. 400 unsubscribe_token_invalid for a token this platform did not sign.',
    auth: 'public',
    query: { token: Joi.string().min(10).max(1000).required() },
    response: UnsubscribePage,
    status: 200,
    handler: async (req: RouteRequest<Params, Params>) => unsubscribePage(req.context, req.query.token!),
  },
  {
    operationId: 'emailSuppression.unsubscribe',
    method: 'POST',
    path: '/email-suppression-entries/public/unsubscribe',
    summary: 'Unsubscribe from the e-mails of a store',
    description:
      "Extension. The unsubscribe page's form post: records an UNSUBSCRIBE suppression of the address for the store (once; a second post changes nothing) and answers a confirmation page.",
    auth: 'public',
    body: UnsubscribeFormDto,
    response: UnsubscribePage,
    status: 200,
    handler: (req: RouteRequest<Params, Params, { token: string }>) => unsubscribe(req.context, req.body.token),
  },
]);

/** Operations beyond the specification's listing (api/routes/index.ts). */
export const emailSuppressionExtensionOperationIds = ['emailSuppression.unsubscribePage', 'emailSuppression.unsubscribe'];
