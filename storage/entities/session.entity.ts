import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A signed-in device. Access tokens name their session; a revoked session stops them at once. */
@Entity({ name: 'sessions' })
export class Session {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId!: string | null;
  @Column('text', { nullable: true }) ip!: string | null;
  @Column('text', { name: 'user_agent', nullable: true }) userAgent!: string | null;
  /** How it was created: password, two_factor, device_flow. */
  @Column('text') method!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'last_seen_at', default: () => 'now()' }) lastSeenAt!: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt!: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
  @Column('text', { name: 'revoke_reason', nullable: true }) revokeReason!: string | null;
}
