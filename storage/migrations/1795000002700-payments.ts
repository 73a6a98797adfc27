import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments (docs/payments.md): idempotency keys, provider callback event ids seen once, the payment
 * simulator's own state (a separate party: it keeps its payments here so they survive restarts),
 * payments of orders and their ledger of operations. Money is numeric(14, 4) (docs/decisions.md, Money).
 */
export class Payments1795000002700 implements MigrationInterface {
  name = 'Payments1795000002700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        tenant_id uuid NOT NULL,
        scope text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        owner uuid NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'done')),
        -- The first answer as the JSON text it was sent (text, not jsonb: a replay answers the same bytes, keys in the same order).
        result text NULL,
        locked_until timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, scope, key)
      )`);
    await q.query('CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)');

    await q.query(`
      CREATE TABLE provider_callback_events (
        provider text NOT NULL,
        event_id text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (provider, event_id)
      )`);

    await q.query(`
      CREATE TABLE provider_sim_payments (
        id text PRIMARY KEY,
        provider text NOT NULL CHECK (provider IN ('iyzico', 'stripe', 'adyen')),
        reference text NOT NULL,
        status text NOT NULL CHECK (status IN ('CHALLENGE_PENDING', 'AUTHORIZED', 'CAPTURED', 'VOIDED', 'DECLINED')),
        amount numeric(14, 4) NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        captured numeric(14, 4) NOT NULL DEFAULT 0,
        refunded numeric(14, 4) NOT NULL DEFAULT 0,
        capture_count integer NOT NULL DEFAULT 0,
        card_flow text NULL,
        card_brand text NULL,
        card_last4 text NULL,
        capture_now boolean NOT NULL DEFAULT false,
        decline_code text NULL,
        challenge_token text NULL UNIQUE,
        challenge_code text NULL,
        challenge_expires_at timestamptz NULL,
        challenge_used_at timestamptz NULL,
        return_url text NULL,
        callback_url text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (captured >= 0 AND captured <= amount AND refunded >= 0 AND refunded <= captured)
      )`);
    // The simulator's card vault (the provider's side: it keeps saved cards, never their CVC; we keep only the token).
    await q.query(`
      CREATE TABLE provider_sim_cards (
        token text PRIMARY KEY,
        provider text NOT NULL CHECK (provider IN ('iyzico', 'stripe', 'adyen')),
        number text NOT NULL,
        expiry_month integer NOT NULL,
        expiry_year integer NOT NULL,
        holder_name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE provider_sim_callbacks (
        id uuid PRIMARY KEY,
        provider text NOT NULL,
        url text NOT NULL,
        body text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        delivered_at timestamptz NULL,
        last_error text NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE payments (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL,
        order_id uuid NOT NULL,
        provider text NOT NULL CHECK (provider IN ('iyzico', 'stripe', 'adyen')),
        provider_payment_id text NULL,
        status text NOT NULL CHECK (status IN ('PENDING_CHALLENGE', 'AUTHORIZED', 'PARTIALLY_CAPTURED', 'CAPTURED', 'VOIDED',
          'DECLINED', 'PARTIALLY_REFUNDED', 'REFUNDED')),
        currency char(3) NOT NULL,
        amount numeric(14, 4) NOT NULL CHECK (amount > 0),
        captured numeric(14, 4) NOT NULL DEFAULT 0,
        refunded numeric(14, 4) NOT NULL DEFAULT 0,
        pending_manual_refund numeric(14, 4) NOT NULL DEFAULT 0,
        installments integer NOT NULL DEFAULT 1,
        card_brand text NULL,
        card_last4 text NULL,
        decline_code text NULL,
        decline_message text NULL,
        challenge_url text NULL,
        challenge_expires_at timestamptz NULL,
        return_url text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (captured >= 0 AND captured <= amount),
        CHECK (refunded >= 0 AND pending_manual_refund >= 0 AND refunded + pending_manual_refund <= captured)
      )`);
    await q.query('CREATE INDEX payments_order ON payments (tenant_id, order_id)');
    await q.query('CREATE UNIQUE INDEX payments_provider_payment ON payments (provider, provider_payment_id)');

    await q.query(`
      CREATE TABLE payment_operations (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        payment_id uuid NOT NULL REFERENCES payments(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('AUTHORIZE', 'DECLINE', 'CAPTURE', 'VOID', 'REFUND', 'MANUAL_REFUND_REQUESTED',
          'MANUAL_REFUND_CONFIRMED', 'MANUAL_REFUND_CANCELLED')),
        amount numeric(14, 4) NOT NULL CHECK (amount >= 0),
        provider_reference text NULL,
        note text NULL,
        actor_type text NOT NULL,
        actor_id text NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query('CREATE INDEX payment_operations_payment ON payment_operations (payment_id, created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS payment_operations');
    await q.query('DROP TABLE IF EXISTS payments');
    await q.query('DROP TABLE IF EXISTS provider_sim_callbacks');
    await q.query('DROP TABLE IF EXISTS provider_sim_cards');
    await q.query('DROP TABLE IF EXISTS provider_sim_payments');
    await q.query('DROP TABLE IF EXISTS provider_callback_events');
    await q.query('DROP TABLE IF EXISTS idempotency_keys');
  }
}
