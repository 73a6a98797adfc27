import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A store API key. The secret is shown once; only its SHA-256 and a visible prefix are kept. */
@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') name!: string;
  /** The first characters of the key (`sk_live_ab12cd34`), to recognise it in lists and logs. */
  @Column('text') prefix!: string;
  @Column('text', { name: 'secret_hash' }) secretHash!: string;
  @Column('text', { array: true }) scopes!: string[];
  @Column('uuid', { name: 'created_by', nullable: true }) createdBy!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt!: Date | null;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt!: Date | null;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
}
