import { Column, Entity, PrimaryColumn } from 'typeorm';

export type TenantRole = 'owner' | 'admin' | 'staff';
export type PlatformRole = 'platform_admin' | 'support_agent' | 'sales_rep';

/** A person who signs in. Belongs to one tenant (docs/decisions.md, Tenancy); platform staff may have none. */
@Entity({ name: 'users' })
export class User {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId!: string | null;
  @Column('text', { name: 'tenant_role', nullable: true }) tenantRole!: TenantRole | null;
  @Column('text', { name: 'platform_role', nullable: true }) platformRole!: PlatformRole | null;
  /** Lower-cased; unique. */
  @Column('text') email!: string;
  @Column('text', { name: 'password_hash' }) passwordHash!: string;
  @Column('text') name!: string;
  @Column('text', { nullable: true }) locale!: string | null;
  @Column('text', { nullable: true }) phone!: string | null;
  @Column('timestamptz', { name: 'phone_verified_at', nullable: true }) phoneVerifiedAt!: Date | null;
  @Column('timestamptz', { name: 'email_verified_at', nullable: true }) emailVerifiedAt!: Date | null;
  /** AES-256-GCM encrypted TOTP secret (it must be readable to check codes, so it is encrypted, not hashed). */
  @Column('text', { name: 'totp_secret_enc', nullable: true }) totpSecretEnc!: string | null;
  @Column('timestamptz', { name: 'totp_enabled_at', nullable: true }) totpEnabledAt!: Date | null;
  /** The last TOTP time step spent: a code is accepted only for a later step (no replay). */
  @Column('bigint', { name: 'totp_last_step', nullable: true }) totpLastStep!: string | null;
  @Column('timestamptz', { name: 'password_changed_at', default: () => 'now()' }) passwordChangedAt!: Date;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
