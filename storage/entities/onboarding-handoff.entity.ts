import { Column, Entity, PrimaryColumn } from 'typeorm';

export const HANDOFF_STATUSES = ['PENDING', 'ASSIGNED', 'ACCEPTED', 'INFO_MISSING', 'COMPLETED'] as const;
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];
export const HANDOFF_TASK_OWNERS = ['MERCHANT', 'SUPPORT', 'SALES'] as const;
export type HandoffTaskOwner = (typeof HANDOFF_TASK_OWNERS)[number];

/** A won lead handed from sales to onboarding (platform data, not scoped to a tenant). */
@Entity({ name: 'onboarding_handoffs' })
export class OnboardingHandoff {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'lead_id' }) leadId!: string;
  /** The store being onboarded; null: the lead's linked store (whose tenant's members read the plan). */
  @Column('uuid', { name: 'store_id', nullable: true }) storeId!: string | null;
  @Column('text') status!: HandoffStatus;
  @Column('text') summary!: string;
  @Column('uuid', { name: 'created_by', nullable: true }) createdBy!: string | null;
  @Column('uuid', { name: 'assignee_user_id', nullable: true }) assigneeUserId!: string | null;
  @Column('text', { name: 'info_request', nullable: true }) infoRequest!: string | null;
  @Column('timestamptz', { name: 'info_requested_at', nullable: true }) infoRequestedAt!: Date | null;
  @Column('text', { name: 'info_answer', nullable: true }) infoAnswer!: string | null;
  @Column('timestamptz', { name: 'info_answered_at', nullable: true }) infoAnsweredAt!: Date | null;
  @Column('timestamptz', { name: 'accepted_at', nullable: true }) acceptedAt!: Date | null;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** One step of a handoff's plan, owned by the merchant, support or sales. */
@Entity({ name: 'onboarding_handoff_tasks' })
export class OnboardingHandoffTask {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'handoff_id' }) handoffId!: string;
  @Column('integer') position!: number;
  @Column('text') title!: string;
  @Column('text') owner!: HandoffTaskOwner;
  /** YYYY-MM-DD. */
  @Column('date', { name: 'due_date', nullable: true }) dueDate!: string | null;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt!: Date | null;
  @Column('uuid', { name: 'completed_by', nullable: true }) completedBy!: string | null;
  @Column('text', { name: 'completion_note', nullable: true }) completionNote!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
