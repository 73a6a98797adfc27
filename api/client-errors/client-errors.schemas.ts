/**
 * DTOs, enums and shared query parameters of the client errors area (errors reported by the
 * platform's browser apps, grouped by fingerprint).
 */
import Joi from 'joi';
import { pendingDto } from '../http/route';
import { int, oneOf, text } from '../http/schema-types';

/** Client error `level` (the specification's enumerated values). */
export const CLIENT_ERROR_LEVELS = ['error', 'warning', 'info'] as const;
/** Client error `kind` (the specification's enumerated values). */
export const CLIENT_ERROR_KINDS = ['vue', 'window', 'unhandledrejection', 'section', 'api', 'manual'] as const;
/** Client error group `status` filter (the specification's enumerated values; `all` is a filter value only, default open). */
export const CLIENT_ERROR_GROUP_STATUSES = ['open', 'resolved', 'ignored', 'all'] as const;

export const ClientErrorBatchDto = pendingDto('ClientErrorBatchDto');
export const SetGroupStatusDto = pendingDto('SetGroupStatusDto');
export const AddCommentDto = pendingDto('AddCommentDto');

/** `app`: the reporting application's name, at most 40 characters (empty means every app). */
const app = (): Joi.StringSchema => text(0, 40).allow('');

/**
 * Query parameters of `GET /client-errors/grouped`, which `GET /client-errors/stats` takes as well
 * ("same parameters as grouped"). Untyped in the specification: `app` is typed like the event
 * list's (at most 40 characters).
 */
export const CLIENT_ERROR_GROUP_QUERY: Record<string, Joi.Schema> = {
  app: app(),
  hours: int(1, 720).default(24),
  limit: int(1, 100).default(20),
  status: oneOf(CLIENT_ERROR_GROUP_STATUSES).default('open'),
  kind: oneOf(CLIENT_ERROR_KINDS),
  level: oneOf(CLIENT_ERROR_LEVELS),
};

/** Query parameters of `GET /client-errors` (the individual events). */
export const CLIENT_ERROR_EVENT_QUERY: Record<string, Joi.Schema> = {
  app: app(),
  level: oneOf(CLIENT_ERROR_LEVELS),
  kind: oneOf(CLIENT_ERROR_KINDS),
  hours: int(1, 720).default(24),
  search: text(0, 200).allow(''),
  cursor: text(0, 120).allow(''),
  limit: int(1, 200).default(50),
};

/**
 * `{fingerprint}`: the group key computed from the error (message, kind and top frames), letters,
 * digits, `_` and `-`, 1 to 128 characters (the specification does not type it).
 */
export const fingerprintParam = text(1, 128)
  .pattern(/^[A-Za-z0-9_-]+$/, 'fingerprint')
  .required()
  .description('Fingerprint of an error group (letters, digits, _ and -; 1 to 128 characters).');
