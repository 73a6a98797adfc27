import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last TOTP time step a user has spent (activate, sign-in challenge, disable). A code is accepted
 * only for a later step, so a code seen on the wire or over a shoulder cannot be replayed within its
 * 30-second window (RFC 6238 section 5.2). Kept on the user, not on a challenge, so a replay through
 * a fresh sign-in is refused too; updated with a conditional UPDATE, so two concurrent uses of one
 * code cannot both succeed.
 */
export class TotpLastStep1795000000020 implements MigrationInterface {
  name = 'TotpLastStep1795000000020';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users ADD COLUMN totp_last_step bigint NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users DROP COLUMN totp_last_step');
  }
}
