/** DTOs of the saved reports area. */
import { pendingDto } from '../http/route';

export const CreateSavedReportDto = pendingDto('CreateSavedReportDto');
