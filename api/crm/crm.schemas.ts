/** DTOs and enums of the CRM area (leads, activities, onboarding handoffs, sales team). */
import { pendingDto } from '../http/route';

/** Lead `stage` (the specification's enumerated values). */
export const LEAD_STAGES = [
  'NEW',
  'QUALIFIED',
  'CONTACTED',
  'DEMO_SCHEDULED',
  'PROPOSAL_SENT',
  'WON',
  'LOST',
  'TRIAL_STARTED',
  'ONBOARDING_IN_PROGRESS',
  'ACTIVATED',
  'EXPANSION_CANDIDATE',
  'CHURN_RISK',
] as const;
/** Lead `followUp` filter (the specification's enumerated values). */
export const LEAD_FOLLOW_UP_FILTERS = ['OVERDUE', 'MISSING'] as const;

export const RequestPlanBankTransferDto = pendingDto('RequestPlanBankTransferDto');
export const SendLeadPaymentLinkDto = pendingDto('SendLeadPaymentLinkDto');
export const LinkLeadStoreDto = pendingDto('LinkLeadStoreDto');
/** A list of lead or activity ids to act on (assign to me, complete). */
export const CrmBulkAssignDto = pendingDto('CrmBulkAssignDto');
export const CrmLeadTransferDto = pendingDto('CrmLeadTransferDto');
export const DemoRequestDto = pendingDto('DemoRequestDto');
export const CreateLeadDto = pendingDto('CreateLeadDto');
export const UpdateLeadDto = pendingDto('UpdateLeadDto');
export const CreateActivityDto = pendingDto('CreateActivityDto');
export const CreateOnboardingHandoffDto = pendingDto('CreateOnboardingHandoffDto');
