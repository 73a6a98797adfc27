import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One generation of a session's refresh token; only its SHA-256 is stored. Used once (rotation). */
@Entity({ name: 'refresh_tokens' })
export class RefreshToken {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'session_id' }) sessionId!: string;
  @Column('text', { name: 'token_hash' }) tokenHash!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt!: Date;
  @Column('timestamptz', { name: 'used_at', nullable: true }) usedAt!: Date | null;
}
