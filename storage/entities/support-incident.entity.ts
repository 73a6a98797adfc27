import { Column, Entity, PrimaryColumn } from 'typeorm';

export type IncidentStatus = 'INVESTIGATING' | 'IDENTIFIED' | 'MONITORING' | 'RESOLVED';
export type IncidentSeverity = 'MINOR' | 'MAJOR' | 'CRITICAL';

/** A platform incident (docs/support.md, "Incidents"); the merchants it affects are the tenants of its linked tickets. */
@Entity({ name: 'support_incidents' })
export class SupportIncident {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') title!: string;
  @Column('text') status!: IncidentStatus;
  @Column('text') severity!: IncidentSeverity;
  @Column('uuid', { name: 'created_by_user_id', nullable: true }) createdByUserId!: string | null;
  @Column('timestamptz', { name: 'started_at' }) startedAt!: Date;
  @Column('timestamptz', { name: 'resolved_at', nullable: true }) resolvedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** One broadcast update of an incident; `idempotencyKey` is unique per incident. */
@Entity({ name: 'incident_updates' })
export class IncidentUpdate {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'incident_id' }) incidentId!: string;
  @Column('text') message!: string;
  /** The incident's status once this update was posted. */
  @Column('text') status!: IncidentStatus;
  @Column('text', { name: 'idempotency_key', nullable: true }) idempotencyKey!: string | null;
  @Column('uuid', { name: 'created_by_user_id', nullable: true }) createdByUserId!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}

/** A tenant a broadcast reached: at most once per update and tenant. */
@Entity({ name: 'incident_broadcast_recipients' })
export class IncidentBroadcastRecipient {
  @PrimaryColumn('uuid', { name: 'update_id' }) updateId!: string;
  @PrimaryColumn('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
