/**
 * DTOs, enums and shared query parameters of the client errors area (errors reported by the
 * platform's browser apps, grouped by fingerprint; docs/client-errors.md).
 */
import Joi from 'joi';
import { t, typedDto, type InputOf } from '../http/typed-schema';
import { int, oneOf, text, uuid } from '../http/schema-types';

/** Client error `level` (the specification's enumerated values). */
export const CLIENT_ERROR_LEVELS = ['error', 'warning', 'info'] as const;
export type ClientErrorLevel = (typeof CLIENT_ERROR_LEVELS)[number];
/** Client error `kind` (the specification's enumerated values). */
export const CLIENT_ERROR_KINDS = ['vue', 'window', 'unhandledrejection', 'section', 'api', 'manual'] as const;
export type ClientErrorKind = (typeof CLIENT_ERROR_KINDS)[number];
/** Client error group `status` filter (the specification's enumerated values; `all` is a filter value only, default open). */
export const CLIENT_ERROR_GROUP_STATUSES = ['open', 'resolved', 'ignored', 'all'] as const;
export type ClientErrorGroupStatusFilter = (typeof CLIENT_ERROR_GROUP_STATUSES)[number];
/** The statuses a group can be in (and be set to). */
export const CLIENT_ERROR_GROUP_STATES = ['open', 'resolved', 'ignored'] as const;
export type ClientErrorGroupState = (typeof CLIENT_ERROR_GROUP_STATES)[number];

/** Bounds of the intake: events per batch and the length of each field. */
export const CLIENT_ERROR_BOUNDS = { events: 50, app: 40, message: 1000, stack: 8000, url: 2000 } as const;
/** Comments a group keeps at most (so its comment list is whole in one answer). */
export const CLIENT_ERROR_COMMENTS_PER_GROUP = 500;

/** `app`: the reporting application's name, at most 40 characters (empty means every app). */
const app = (): Joi.StringSchema => text(0, 40).allow('');

const ClientErrorEventInput = t.object({
  kind: t.oneOf(CLIENT_ERROR_KINDS).required(),
  level: t.oneOf(CLIENT_ERROR_LEVELS).default('error'),
  message: t.string(text(1, CLIENT_ERROR_BOUNDS.message).description('The error message (1 to 1000 characters).')).required(),
  stack: t.string(
    text(0, CLIENT_ERROR_BOUNDS.stack)
      .allow('')
      .description('The stack trace as the browser wrote it (at most 8000 characters); its top frame is part of the fingerprint.'),
  ),
  url: t.string(text(0, CLIENT_ERROR_BOUNDS.url).allow('').description('The page the error happened on (at most 2000 characters).')),
});

export const ClientErrorBatchDto = typedDto(
  'ClientErrorBatchDto',
  t
    .object({
      app: t
        .string(
          Joi.string()
            .pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'app name')
            .description('The reporting application (`storefront`, `console`, …): 1 to 40 letters, digits, `.`, `_` or `-`.'),
        )
        .required(),
      storeId: t.string(
        uuid().description(
          'The store whose pages report (the storefront sends its own store id); it must exist and not be archived. Left out: errors of pages outside a store.',
        ),
      ),
      events: t.array(ClientErrorEventInput, Joi.array().min(1).max(CLIENT_ERROR_BOUNDS.events).description('1 to 50 events.')).required(),
    })
    .rules((s) => s.description('A batch of errors one page reports at once.')),
);
export type ClientErrorBatchInput = InputOf<typeof ClientErrorBatchDto>;
export type ClientErrorEventInput = ClientErrorBatchInput['events'][number];

export const SetGroupStatusDto = typedDto(
  'SetGroupStatusDto',
  t.object({
    status: t
      .oneOf(CLIENT_ERROR_GROUP_STATES, (s) =>
        s.description('open, resolved (reopens by itself when the error happens again) or ignored (stays ignored).'),
      )
      .required(),
  }),
);
export type SetGroupStatusInput = InputOf<typeof SetGroupStatusDto>;

export const AddCommentDto = typedDto(
  'AddCommentDto',
  t.object({
    body: t.string(Joi.string().trim().min(1).max(5000).description('The comment, 1 to 5000 characters (trimmed).')).required(),
  }),
);
export type AddCommentInput = InputOf<typeof AddCommentDto>;

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

export interface ClientErrorGroupQuery {
  app?: string;
  hours: number;
  limit: number;
  status: ClientErrorGroupStatusFilter;
  kind?: ClientErrorKind;
  level?: ClientErrorLevel;
}

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

export interface ClientErrorEventQuery {
  app?: string;
  level?: ClientErrorLevel;
  kind?: ClientErrorKind;
  hours: number;
  search?: string;
  cursor?: string;
  limit: number;
}

/**
 * `{fingerprint}`: the group key computed from the error (message, kind and top frames), letters,
 * digits, `_` and `-`, 1 to 128 characters (the specification does not type it).
 */
export const fingerprintParam = text(1, 128)
  .pattern(/^[A-Za-z0-9_-]+$/, 'fingerprint')
  .required()
  .description('Fingerprint of an error group (letters, digits, _ and -; 1 to 128 characters).');
