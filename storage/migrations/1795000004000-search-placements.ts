import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which Meilisearch node holds each store's index (docs/scaling.md, "Several Meilisearch nodes"):
 * - `node`: the node that every read and write of the store's index goes to;
 * - `moving_to`: set while `npm run move-store` builds the index on another node (informational:
 *   reads and writes keep going to `node` until the switch, which sets `node` and clears it);
 * - `version`: raised by every switch, so a process can tell a placement it cached is old.
 * A store gets its row the first time its index is used (search/store-placement.ts); stores that
 * existed before keep their index where it is, found by asking the nodes.
 */
export class SearchPlacements1795000004000 implements MigrationInterface {
  name = 'SearchPlacements1795000004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE search_placements (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        node text NOT NULL CHECK (node ~ '^[a-z][a-z0-9-]{0,31}$'),
        moving_to text NULL CHECK (moving_to IS NULL OR (moving_to ~ '^[a-z][a-z0-9-]{0,31}$' AND moving_to <> node)),
        version integer NOT NULL DEFAULT 1,
        placed_at timestamptz NOT NULL DEFAULT now(),
        moved_at timestamptz NULL
      )`);
    await q.query('CREATE INDEX search_placements_node ON search_placements (node)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE search_placements');
  }
}
