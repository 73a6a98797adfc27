/**
 * The error codes of the HTTP layer (bodies, uploads, CSV, database constraints, routing): each
 * code once, with its HTTP status and what it means. Throw sites use `httpError(code, detail,
 * errors)`; the API reference lists the codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const HTTP_ERRORS = defineErrorCodes('http', {
  route_not_found: { status: 404, description: 'No operation is served at this path.' },
  invalid_json: { status: 400, description: 'The request body is not valid JSON.' },
  body_incomplete: { status: 400, description: 'The request body was not received completely (the client went away).' },
  body_unreadable: { status: 400, description: 'The request body could not be read.' },
  unexpected_body: { status: 400, description: 'The operation takes no request body, and one was sent.' },
  invalid_multipart: { status: 400, description: 'The multipart/form-data body is malformed or has unexpected parts.' },
  invalid_csv: { status: 400, description: 'The CSV body could not be parsed, or has no header row.' },
  duplicate: { status: 409, description: 'A resource with the same unique value already exists.' },
  reference_conflict: { status: 409, description: 'The operation refers to, or is referred to by, another resource.' },
  missing_value: { status: 400, description: 'A required value is missing.' },
  check_violation: { status: 400, description: 'A value breaks a rule of the resource.' },
  invalid_value: { status: 400, description: 'A value has the wrong format.' },
  value_out_of_range: { status: 400, description: 'A value is out of range or too long.' },
});

export const httpError = HTTP_ERRORS.error;
