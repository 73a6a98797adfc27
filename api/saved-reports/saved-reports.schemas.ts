/**
 * DTOs of the saved reports area (docs/insight.md, "Saved reports"). A saved report names one of the
 * business intelligence reports with its parameters (the report's own query parameters, the store
 * aside, with the same bounds and defaults) and an optional schedule: DAILY, WEEKLY (Mondays) or
 * MONTHLY (the 1st) at `hour` o'clock in `timeZone` (the store's time zone when left out); NONE has
 * neither hour nor time zone.
 */
import Joi from 'joi';
import { t, typedDto, type InputOf } from '../http/typed-schema';
import { date, int, positiveInt } from '../http/schema-types';
import { timeZone } from '../organization/organization.schemas';

export const SAVED_REPORT_KINDS = [
  'PROFIT_LOSS',
  'KPIS',
  'TOP_PRODUCTS',
  'REVENUE_TIMESERIES',
  'COHORTS',
  'FUNNEL',
  'CUSTOMER_LTV',
] as const;
export type SavedReportKind = (typeof SAVED_REPORT_KINDS)[number];
export const SAVED_REPORT_SCHEDULES = ['DAILY', 'WEEKLY', 'MONTHLY', 'NONE'] as const;
export type SavedReportSchedule = (typeof SAVED_REPORT_SCHEDULES)[number];

/** The most saved reports a store keeps. */
export const SAVED_REPORTS_PER_STORE = 100;

const days = () => int(1, 365).default(30);
const limit = () => positiveInt(100).default(50);

/** The parameters of each report: its query parameters without storeId, bounds and defaults as the report's. */
export const REPORT_PARAMETERS: Record<SavedReportKind, Joi.ObjectSchema> = {
  PROFIT_LOSS: Joi.object({
    from: date().description('First day (YYYY-MM-DD); with to. Left out, a scheduled report covers the period before each run.'),
    to: date(),
  }).and('from', 'to'),
  KPIS: Joi.object({ days: days() }),
  TOP_PRODUCTS: Joi.object({ days: days(), limit: limit() }),
  REVENUE_TIMESERIES: Joi.object({ days: days() }),
  COHORTS: Joi.object({ monthsBack: int(1, 36).default(12) }),
  FUNNEL: Joi.object({ days: days() }),
  CUSTOMER_LTV: Joi.object({ limit: limit() }),
};

const parameters = Joi.object()
  .when('report', {
    switch: SAVED_REPORT_KINDS.map((kind) => ({ is: kind, then: REPORT_PARAMETERS[kind] })),
  })
  .description(
    "The report's parameters: PROFIT_LOSS { from, to } (both or neither), KPIS, REVENUE_TIMESERIES and FUNNEL { days: 1–365, default 30 }, TOP_PRODUCTS { days, limit: 1–100, default 50 }, COHORTS { monthsBack: 1–36, default 12 }, CUSTOMER_LTV { limit }. Unknown keys are refused.",
  );

export const CreateSavedReportDto = typedDto(
  'CreateSavedReportDto',
  t.object({
    storeId: t.storeId(),
    name: t.string(Joi.string().trim().min(1).max(120)).required(),
    report: t.oneOf(SAVED_REPORT_KINDS).required(),
    parameters: t.custom<Record<string, unknown>>(parameters).default({}),
    schedule: t.oneOf(SAVED_REPORT_SCHEDULES).required(),
    hour: t.number(int(0, 23).description('Hour of the day the report comes due (0–23); required unless schedule is NONE.')),
    timeZone: t.string(timeZone().description("Time zone of hour; the store's when left out. Not with schedule NONE.")),
  }),
);
export type CreateSavedReportInput = InputOf<typeof CreateSavedReportDto>;
