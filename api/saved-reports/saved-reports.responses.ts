/** The response schemas of the saved reports area; tests check every answer against them. */
import Joi from 'joi';
import { dto } from '../http/route';
import { SAVED_REPORT_KINDS, SAVED_REPORT_SCHEDULES } from './saved-reports.schemas';

const SavedReport = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  name: Joi.string().required(),
  report: Joi.string()
    .valid(...SAVED_REPORT_KINDS)
    .required(),
  parameters: Joi.object().unknown(true).required().description('With the defaults filled in.'),
  schedule: Joi.string()
    .valid(...SAVED_REPORT_SCHEDULES)
    .required(),
  hour: Joi.number().integer().allow(null).required(),
  timeZone: Joi.string().allow(null).required(),
  nextDueAt: Joi.string()
    .isoDate()
    .allow(null)
    .required()
    .description('When the report next comes due (the saved_report.due webhook); null for NONE.'),
  lastDueAt: Joi.string().isoDate().allow(null).required(),
  createdAt: Joi.string().isoDate().required(),
  updatedAt: Joi.string().isoDate().required(),
}).label('SavedReport');

export const SavedReportResponse = dto('SavedReportResponse', SavedReport);
export const SavedReportListResponse = dto(
  'SavedReportListResponse',
  Joi.object({ items: Joi.array().items(SavedReport).required().description('Oldest first; at most 100 per store.') }),
);
