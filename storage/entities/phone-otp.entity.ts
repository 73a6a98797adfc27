import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A phone one-time password: hashed code, 5-minute expiry, limited attempts. */
@Entity({ name: 'phone_otps' })
export class PhoneOtp {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('text') phone!: string;
  @Column('text', { name: 'code_hash' }) codeHash!: string;
  @Column('integer', { default: 0 }) attempts!: number;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt!: Date;
  @Column('timestamptz', { name: 'consumed_at', nullable: true }) consumedAt!: Date | null;
}
