import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Exports resume where they stopped: the id of the last product in the chunks written so far (NULL:
 * nothing written yet). A chunk and the cursor after it commit together.
 */
export class ExportCursor1795000001800 implements MigrationInterface {
  name = 'ExportCursor1795000001800';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE transfer_jobs ADD COLUMN export_after uuid NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE transfer_jobs DROP COLUMN export_after');
  }
}
