/**
 * E-mail suppression entries: addresses that must not be e-mailed. The listing of the specification
 * ends inside the check operation; nothing after it is known.
 */
import Joi from 'joi';
import { defineRoutes, listedRequired } from '../http/route';
import { bool, positiveInt, storeId } from '../http/schema-types';
import { RecordSuppressionDto } from './email-suppression.schemas';
const LIST_DESCRIPTION =
  'The specification does not type these parameters: emailDomain is a domain name (at most 253 characters); emailHash is the 64 hexadecimal characters of a SHA-256 hash of the address; appliesPlatform is true or false (platform-wide entries); limit is 1 to 100, default 50.';
const CHECK_DESCRIPTION =
  'Only email is accepted: the specification lists `email (r, string)` and is cut off after it, so any further parameters are unknown and rejected. email is required because it is the subject of the check; it must be an e-mail address of at most 254 characters.';

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
    status: 200,
  },
  {
    operationId: 'emailSuppression.record',
    method: 'POST',
    path: '/email-suppression-entries',
    summary: 'Suppress an e-mail address',
    body: RecordSuppressionDto,
    status: 201,
  },
  {
    operationId: 'emailSuppression.storeOverview',
    method: 'GET',
    path: '/email-suppression-entries/store-overview',
    summary: "Overview of a store's suppression entries",
    query: { storeId: storeId() },
    status: 200,
  },
  {
    operationId: 'emailSuppression.check',
    method: 'GET',
    path: '/email-suppression-entries/check',
    summary: 'Whether an e-mail address is suppressed',
    description: CHECK_DESCRIPTION,
    query: { email: Joi.string().email({ tlds: false }).max(254).required() },
    status: 200,
  },
]);
