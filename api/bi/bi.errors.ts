/**
 * The error codes of the business intelligence reports: each code once, with its HTTP status and
 * what it means. Throw sites use `biError(code, detail, errors)`; the API reference lists the codes.
 */
import { defineErrorCodes } from '../../lib/errors';

export const BI_ERRORS = defineErrorCodes('bi', {
  bi_period_invalid: { status: 400, description: 'The period of the report ends before it starts (`to` is before `from`).' },
});

export const biError = BI_ERRORS.error;
