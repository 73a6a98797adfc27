/**
 * The error codes of the jobs area: each code once, with its HTTP status and what it means. Throw
 * sites use `jobsError(code, detail, errors)`; the API reference lists the codes (api/error-
 * codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const JOBS_ERRORS = defineErrorCodes('jobs', {
  queue_not_found: { status: 404, description: 'There is no queue of this name.' },
  job_not_found: { status: 404, description: 'The queue has no job with this id.' },
  job_not_failed: { status: 409, description: 'Only failed jobs are retried; this one is not failed.' },
});

export const jobsError = JOBS_ERRORS.error;
