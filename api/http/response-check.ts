/**
 * The response contract, checked in tests: with NODE_ENV=test the router validates every JSON body a
 * handler returns against the response schema its route declares (the schema the OpenAPI document
 * shows), and a body that does not match answers 500 naming the operation and each difference, so
 * the test that made the request fails. Production never runs it.
 *
 * The body is checked as the client receives it (serialised to JSON). Unknown fields, missing
 * required fields and wrong types are differences; so are what joi's conversion would otherwise
 * accept: a number or boolean sent as a string, a timestamp sent as a number, a single value for an
 * array (timestamps are strings in JSON, and are converted).
 */
import Joi from 'joi';
import { AppError, COMMON_ERRORS } from '../../lib/errors';
import { RawJson } from '../../lib/raw-json';
import type { RouteDef } from './route';

const OPTIONS: Joi.ValidationOptions = { abortEarly: false, convert: true, allowUnknown: false, errors: { wrap: { label: false } } };

/**
 * Positions where joi's conversion hid a difference: a number or boolean sent as a string, a
 * timestamp sent as a number, a single value where the schema says an array.
 */
function stringlyTyped(sent: unknown, converted: unknown, path: string, out: string[]): void {
  const where = path || 'body';
  if (typeof sent === 'string') {
    if (typeof converted === 'number' || typeof converted === 'boolean')
      out.push(`${where} is sent as the string ${JSON.stringify(sent)}, the schema says ${typeof converted}`);
    return;
  }
  if (typeof sent === 'number' && converted instanceof Date) {
    out.push(`${where} is sent as the number ${sent}, the schema says a date-time string`);
    return;
  }
  if (!Array.isArray(sent) && Array.isArray(converted)) {
    out.push(`${where} is sent as a single value, the schema says an array`);
    return;
  }
  if (Array.isArray(sent) && Array.isArray(converted)) {
    sent.forEach((item, i) => stringlyTyped(item, converted[i], `${path}[${i}]`, out));
    return;
  }
  if (sent && typeof sent === 'object' && converted && typeof converted === 'object' && !(converted instanceof Date)) {
    for (const [key, value] of Object.entries(sent))
      stringlyTyped(value, (converted as Record<string, unknown>)[key], path ? `${path}.${key}` : key, out);
  }
}

/** The differences between the body and the route's declared response schema (none: an empty list). */
export function responseDifferences(route: RouteDef, result: unknown): string[] {
  const declared = route.response;
  if (route.status === 204 || !declared || declared.pending || declared.contentType !== 'application/json') return [];
  const sent: unknown = result instanceof RawJson ? JSON.parse(result.json) : JSON.parse(JSON.stringify(result ?? null));
  const { error, value } = declared.schema.validate(sent, OPTIONS);
  const differences = error
    ? error.details.map(
        (d) =>
          `${
            d.path
              .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
              .join('')
              .replace(/^\./, '') || 'body'
          }: ${d.message}`,
      )
    : [];
  if (!error) stringlyTyped(sent, value, '', differences);
  return differences;
}

/** Throws a 500 naming the operation and the differences when the body breaks its route's response schema. */
export function assertResponseMatches(route: RouteDef, result: unknown): void {
  const differences = responseDifferences(route, result);
  if (differences.length === 0) return;
  const shown = differences.slice(0, 20).join('; ') + (differences.length > 20 ? `; and ${differences.length - 20} more` : '');
  throw new AppError(
    500,
    COMMON_ERRORS.code('internal_error'),
    'Internal Server Error',
    `The response of ${route.operationId} (${route.status}) does not match its response schema ${route.response!.name}: ${shown}.`,
  );
}
