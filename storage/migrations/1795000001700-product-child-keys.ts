import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the foreign keys that only repeat what another key already guarantees, to make catalog
 * writes cheaper (each key is a lookup and a row lock per inserted row; an import of 100 000 products
 * writes about 250 000 variants):
 * - product_variants.tenant_id and .store_id: a variant belongs to its product (product_id keeps its
 *   key, ON DELETE CASCADE), and the product's own keys hold its store and tenant. Deleting a store
 *   or a tenant still removes its variants, through their products.
 * - products.tenant_id: the product's store (store_id keeps its key) belongs to the tenant, and
 *   deleting a tenant deletes its stores and so their products.
 * The columns stay (tenancy filters and indexes use them); services always copy them from the
 * product or store they belong to.
 */
export class ProductChildKeys1795000001700 implements MigrationInterface {
  name = 'ProductChildKeys1795000001700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE product_variants DROP CONSTRAINT IF EXISTS product_variants_tenant_id_fkey, DROP CONSTRAINT IF EXISTS product_variants_store_id_fkey',
    );
    await q.query('ALTER TABLE products DROP CONSTRAINT IF EXISTS products_tenant_id_fkey');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE products ADD CONSTRAINT products_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE',
    );
    await q.query(
      'ALTER TABLE product_variants ADD CONSTRAINT product_variants_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE',
    );
    await q.query(
      'ALTER TABLE product_variants ADD CONSTRAINT product_variants_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE',
    );
  }
}
