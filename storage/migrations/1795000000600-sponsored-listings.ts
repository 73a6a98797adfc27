import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sponsored listings: paid placement of one product of a store in its storefront search results.
 * Money columns are numeric(14, 4) in the store's currency; `spent` never passes `budget` (the click
 * that reaches it ends the listing). At most one listing per product that is not ENDED. Keywords are
 * stored normalised (lowercase, NFKC, words separated by one space).
 */
export class SponsoredListings1795000000600 implements MigrationInterface {
  name = 'SponsoredListings1795000000600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sponsored_listings (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'PAUSED', 'ENDED')),
        keywords text[] NOT NULL DEFAULT '{}' CHECK (cardinality(keywords) <= 20),
        starts_at timestamptz NOT NULL DEFAULT now(),
        ends_at timestamptz NULL,
        budget numeric(14, 4) NULL CHECK (budget IS NULL OR budget > 0),
        cost_per_click numeric(14, 4) NOT NULL CHECK (cost_per_click >= 0),
        spent numeric(14, 4) NOT NULL DEFAULT 0 CHECK (spent >= 0),
        clicks bigint NOT NULL DEFAULT 0 CHECK (clicks >= 0),
        ended_at timestamptz NULL,
        ended_reason text NULL CHECK (ended_reason IN ('END_DATE', 'BUDGET', 'MANUAL')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sponsored_listings_window CHECK (ends_at IS NULL OR ends_at > starts_at),
        CONSTRAINT sponsored_listings_spent CHECK (budget IS NULL OR spent <= budget),
        CONSTRAINT sponsored_listings_ended CHECK ((status = 'ENDED') = (ended_reason IS NOT NULL AND ended_at IS NOT NULL))
      )`);
    // Merchant list, newest first, and the cursor.
    await q.query('CREATE INDEX sponsored_listings_store ON sponsored_listings (store_id, id)');
    // The lazy end-of-life UPDATE and the public candidate read only look at listings that are not ENDED.
    await q.query(`CREATE INDEX sponsored_listings_open ON sponsored_listings (store_id) WHERE status <> 'ENDED'`);
    await q.query(`CREATE INDEX sponsored_listings_active ON sponsored_listings (store_id) WHERE status = 'ACTIVE'`);
    // One open (ACTIVE or PAUSED) listing per product.
    await q.query(`CREATE UNIQUE INDEX sponsored_listings_product_open ON sponsored_listings (product_id) WHERE status <> 'ENDED'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE sponsored_listings');
  }
}
