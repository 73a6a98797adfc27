import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Storefront checkouts (docs/storefront.md, "Cart and checkout"): one row per order a shopper placed
 * through the public checkout, with what the order itself does not hold: the shipping option and its
 * charge, the full shipping address, the payment provider and payment, the checkout's state
 * (PENDING_PAYMENT → PAID, CHALLENGE_REQUIRED or DECLINED; CHALLENGE_REQUIRED → PAID or DECLINED).
 * The Pay button's idempotency key lives in idempotency_keys (storage/idempotency.ts).
 */
export class StorefrontCheckout1795000003000 implements MigrationInterface {
  name = 'StorefrontCheckout1795000003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE storefront_checkouts (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        order_id uuid NOT NULL UNIQUE REFERENCES orders(id) ON DELETE CASCADE,
        customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('PENDING_PAYMENT', 'CHALLENGE_REQUIRED', 'PAID', 'DECLINED')),
        currency char(3) NOT NULL,
        subtotal numeric(14, 4) NOT NULL CHECK (subtotal >= 0),
        shipping_rate_id uuid NULL,
        shipping_name text NOT NULL,
        shipping_price numeric(14, 4) NOT NULL CHECK (shipping_price >= 0),
        total numeric(14, 4) NOT NULL CHECK (total >= 0),
        shipping_address jsonb NOT NULL CHECK (jsonb_typeof(shipping_address) = 'object'),
        provider text NOT NULL,
        payment_id uuid NULL,
        challenge_url text NULL,
        decline_code text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX storefront_checkouts_payment ON storefront_checkouts (payment_id) WHERE payment_id IS NOT NULL');
    await q.query('CREATE INDEX storefront_checkouts_tenant ON storefront_checkouts (tenant_id, store_id, created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE storefront_checkouts');
  }
}
