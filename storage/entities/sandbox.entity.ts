import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A developer sandbox: its own tenant (kind sandbox) and store; the token is the store API key `apiKeyId`. */
@Entity({ name: 'sandboxes' })
export class Sandbox {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') email!: string;
  @Column('uuid', { name: 'api_key_id' }) apiKeyId!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'last_reset_at', nullable: true }) lastResetAt!: Date | null;
  @Column('integer', { name: 'reset_count', default: 0 }) resetCount!: number;
  /** When the seeded products were last confirmed in the search index (null while they are not). */
  @Column('timestamptz', { name: 'indexed_at', nullable: true }) indexedAt!: Date | null;
}

/**
 * A refresh credential of the token simulator: trades once for a new simulated token. The credentials
 * of one chain (the first one, minted with a token, and each one obtained by trading the previous)
 * share a family, which is revoked whole when a traded credential is presented again.
 */
@Entity({ name: 'sandbox_refresh_tokens' })
export class SandboxRefreshToken {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('text', { name: 'token_hash' }) tokenHash!: string;
  @Column('uuid', { name: 'api_key_id', nullable: true }) apiKeyId!: string | null;
  @Column('text', { array: true }) scopes!: string[];
  @Column('integer', { name: 'access_ttl_seconds' }) accessTtlSeconds!: number;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt!: Date;
  @Column('timestamptz', { name: 'used_at', nullable: true }) usedAt!: Date | null;
  /** The simulated token issued when this credential was traded. */
  @Column('uuid', { name: 'replaced_by_key_id', nullable: true }) replacedByKeyId!: string | null;
  /** The id of the family's first credential (NULL on rows written before families existed: the row's own id). */
  @Column('uuid', { name: 'family_id', nullable: true }) familyId!: string | null;
  /** Revoked with its family: it can no longer be traded. */
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
  /** No token of the family outlives this (the expiry of the token that minted the family; NULL: none). */
  @Column('timestamptz', { name: 'not_after', nullable: true }) notAfter!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
