/** DTOs of the e-mail suppression area (addresses that must not be e-mailed). */
import { pendingDto } from '../http/route';

export const RecordSuppressionDto = pendingDto('RecordSuppressionDto');
