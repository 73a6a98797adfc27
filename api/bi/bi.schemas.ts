/**
 * Shared query parameters of the business intelligence reports. The specification marks them
 * required without typing them; only storeId is really required (docs/decisions.md, Optional
 * filters), the others have defaults.
 */
import { listedRequired } from '../http/route';
import { int, positiveInt } from '../http/schema-types';

/** `days`: the window ending today, 1 to 365 days, default 30. */
export const biDays = () => listedRequired(int(1, 365).default(30));
/** `limit`: number of rows, 1 to 100, default 50. */
export const biLimit = () => listedRequired(positiveInt(100).default(50));
/** `monthsBack`: number of monthly cohorts, 1 to 36, default 12. */
export const biMonthsBack = () => listedRequired(int(1, 36).default(12));
