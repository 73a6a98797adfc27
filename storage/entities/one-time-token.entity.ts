import { Column, Entity, PrimaryColumn } from 'typeorm';

export type OneTimeTokenPurpose = 'verify_email' | 'reset_password' | 'two_factor_challenge' | 'recovery_code' | 'lead_store_invitation';

/** Single-use, expiring secrets (e-mail links, 2FA login challenges, recovery codes); only hashes are stored. */
@Entity({ name: 'one_time_tokens' })
export class OneTimeToken {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('text') purpose!: OneTimeTokenPurpose;
  @Column('text', { name: 'token_hash' }) tokenHash!: string;
  @Column('jsonb', { default: () => "'{}'::jsonb" }) data!: Record<string, unknown>;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt!: Date | null;
  @Column('timestamptz', { name: 'used_at', nullable: true }) usedAt!: Date | null;
}
