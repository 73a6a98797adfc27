import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refresh families of the sandbox token simulator. Every refresh credential minted by
 * POST /sandbox/tokens starts a family, and each credential obtained by trading one belongs to the
 * same family, so presenting a credential that was already traded can revoke the whole chain (every
 * token and credential descended from the first one), not only its direct successor.
 * - family_id: the id of the family's first credential (existing rows start a family of their own). It
 *   stays nullable, read as the row's own id when NULL, so a process of the previous version that
 *   writes a credential without it keeps working during a rolling deploy;
 * - revoked_at: the credential was revoked with its family (it can no longer be traded);
 * - not_after: no token of the family may outlive this (the expiry of the token that minted the
 *   first credential; NULL when that token never expires).
 */
export class SandboxRefreshFamilies1795000001900 implements MigrationInterface {
  name = 'SandboxRefreshFamilies1795000001900';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE sandbox_refresh_tokens ADD COLUMN family_id uuid NULL');
    await q.query('UPDATE sandbox_refresh_tokens SET family_id = id');
    await q.query('ALTER TABLE sandbox_refresh_tokens ADD COLUMN revoked_at timestamptz NULL');
    await q.query('ALTER TABLE sandbox_refresh_tokens ADD COLUMN not_after timestamptz NULL');
    await q.query('CREATE INDEX sandbox_refresh_tokens_family ON sandbox_refresh_tokens (family_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX sandbox_refresh_tokens_family');
    for (const column of ['not_after', 'revoked_at', 'family_id'])
      await q.query(`ALTER TABLE sandbox_refresh_tokens DROP COLUMN ${column}`);
  }
}
