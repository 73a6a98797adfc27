import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One write: who, what, on which resource, the values before and after, from where, when. */
@Entity({ name: 'audit_log' })
export class AuditEntry {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId!: string | null;
  @Column('text', { name: 'actor_type' }) actorType!: string;
  @Column('text', { name: 'actor_id', nullable: true }) actorId!: string | null;
  @Column('text') action!: string;
  @Column('text', { name: 'resource_type' }) resourceType!: string;
  @Column('text', { name: 'resource_id', nullable: true }) resourceId!: string | null;
  @Column('jsonb', { nullable: true }) before!: Record<string, unknown> | null;
  @Column('jsonb', { nullable: true }) after!: Record<string, unknown> | null;
  @Column('text', { nullable: true }) ip!: string | null;
  @Column('text', { name: 'user_agent', nullable: true }) userAgent!: string | null;
  @Column('text', { name: 'request_id', nullable: true }) requestId!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
