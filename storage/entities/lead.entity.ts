import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Lead `stage`: the specification's enumerated values (allowed moves: api/crm/lead-stages.ts). */
export type LeadStage =
  | 'NEW'
  | 'QUALIFIED'
  | 'CONTACTED'
  | 'DEMO_SCHEDULED'
  | 'PROPOSAL_SENT'
  | 'WON'
  | 'LOST'
  | 'TRIAL_STARTED'
  | 'ONBOARDING_IN_PROGRESS'
  | 'ACTIVATED'
  | 'EXPANSION_CANDIDATE'
  | 'CHURN_RISK';

/** Where a lead came from (docs/crm.md, "Lead fields"). */
export type LeadSource = 'DEMO_REQUEST' | 'WEBSITE' | 'REFERRAL' | 'OUTBOUND' | 'EVENT' | 'PARTNER' | 'OTHER';

export type LeadActivityType = 'CALL' | 'EMAIL' | 'MEETING' | 'TASK';

export type LeadPlanRequestKind = 'BANK_TRANSFER' | 'PAYMENT_LINK';

/**
 * A lead of the platform's sales team: platform data, no tenant. `expectedValue` is numeric(14, 2)
 * read as a string (no floating point on amounts); `storeId` is the linked store of any tenant.
 */
@Entity({ name: 'leads' })
export class Lead {
  @PrimaryColumn('uuid') id!: string;
  @Column('text', { default: 'NEW' }) stage!: LeadStage;
  @Column('uuid', { name: 'owner_user_id', nullable: true }) ownerUserId!: string | null;
  @Column('text', { name: 'company_name' }) companyName!: string;
  @Column('text', { name: 'contact_name', nullable: true }) contactName!: string | null;
  @Column('text', { name: 'contact_email', nullable: true }) contactEmail!: string | null;
  @Column('text', { name: 'contact_phone', nullable: true }) contactPhone!: string | null;
  @Column('text') source!: LeadSource;
  @Column('text', { name: 'expected_plan', nullable: true }) expectedPlan!: string | null;
  @Column('numeric', { name: 'expected_value', precision: 14, scale: 2, nullable: true }) expectedValue!: string | null;
  @Column('char', { length: 3, default: 'TRY' }) currency!: string;
  @Column('timestamptz', { name: 'next_follow_up_at', nullable: true }) nextFollowUpAt!: Date | null;
  @Column('text', { nullable: true }) notes!: string | null;
  @Column('uuid', { name: 'store_id', nullable: true }) storeId!: string | null;
  /** The tenant that registered with the lead's store invitation; its first store is linked to the lead. */
  @Column('uuid', { name: 'invited_tenant_id', nullable: true }) invitedTenantId!: string | null;
  @Column('text', { name: 'lost_reason', nullable: true }) lostReason!: string | null;
  @Column('timestamptz', { name: 'stage_changed_at', default: () => 'now()' }) stageChangedAt!: Date;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** One stage a lead entered; `fromStage` is null for the creation. */
@Entity({ name: 'lead_stage_changes' })
export class LeadStageChange {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'lead_id' }) leadId!: string;
  @Column('text', { name: 'from_stage', nullable: true }) fromStage!: LeadStage | null;
  @Column('text', { name: 'to_stage' }) toStage!: LeadStage;
  @Column('timestamptz', { name: 'changed_at', default: () => 'now()' }) changedAt!: Date;
  @Column('uuid', { name: 'actor_user_id', nullable: true }) actorUserId!: string | null;
}

/** A call, e-mail, meeting or task of a lead. */
@Entity({ name: 'lead_activities' })
export class LeadActivity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'lead_id' }) leadId!: string;
  @Column('text') type!: LeadActivityType;
  @Column('text') subject!: string;
  @Column('text', { nullable: true }) notes!: string | null;
  @Column('timestamptz', { name: 'due_at', nullable: true }) dueAt!: Date | null;
  @Column('uuid', { name: 'assignee_user_id', nullable: true }) assigneeUserId!: string | null;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt!: Date | null;
  @Column('uuid', { name: 'completed_by', nullable: true }) completedBy!: string | null;
  @Column('uuid', { name: 'created_by', nullable: true }) createdBy!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** A bank-transfer or payment-link request for a plan, recorded until billing exists (status REQUESTED). */
@Entity({ name: 'lead_plan_requests' })
export class LeadPlanRequest {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'lead_id' }) leadId!: string;
  @Column('text') kind!: LeadPlanRequestKind;
  @Column('text') reference!: string;
  @Column('text') plan!: string;
  @Column('numeric', { precision: 14, scale: 2 }) amount!: string;
  @Column('char', { length: 3 }) currency!: string;
  @Column('text', { default: 'REQUESTED' }) status!: 'REQUESTED';
  @Column('text', { name: 'sent_to', nullable: true }) sentTo!: string | null;
  @Column('uuid', { name: 'created_by', nullable: true }) createdBy!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
