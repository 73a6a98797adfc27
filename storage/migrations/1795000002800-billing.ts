import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Billing (docs/billing.md): the plans on offer (seeded here), each tenant's subscription, plan
 * purchases paid by card through a payment provider, the tenant's saved card for collecting
 * invoices again, subscription invoices with a gapless number per tenant and year, dunning cases
 * of unpaid invoices, and a per-tenant daily counter of API key requests (usage).
 */
export class Billing1795000002800 implements MigrationInterface {
  name = 'Billing1795000002800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE billing_plans (
        code text PRIMARY KEY CHECK (code ~ '^[A-Z][A-Z0-9_]{1,39}$'),
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        monthly_price numeric(14, 4) NOT NULL CHECK (monthly_price >= 0),
        currency text NOT NULL DEFAULT 'TRY',
        max_stores integer NULL CHECK (max_stores >= 0),
        max_products integer NULL CHECK (max_products >= 0),
        max_staff integer NULL CHECK (max_staff >= 0),
        max_api_calls_per_month integer NULL CHECK (max_api_calls_per_month >= 0),
        features jsonb NOT NULL DEFAULT '{}'::jsonb,
        is_public boolean NOT NULL DEFAULT true,
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      INSERT INTO billing_plans (code, name, description, monthly_price, max_stores, max_products, max_staff, max_api_calls_per_month, features, position)
      VALUES
        ('FREE', 'Free', 'Every tenant without a paid subscription.', 0, 10, 250000, 5, 50000,
         '{"visualSearch": false, "sponsoredListings": false, "customDomain": false}', 0),
        ('STARTER', 'Starter', 'A growing shop: more products and staff.', 299, 10, 500000, 10, 250000,
         '{"visualSearch": false, "sponsoredListings": false, "customDomain": true}', 1),
        ('GROWTH', 'Growth', 'Several stores, visual search and sponsored listings.', 799, 25, 2000000, 25, 1000000,
         '{"visualSearch": true, "sponsoredListings": true, "customDomain": true}', 2),
        ('SCALE', 'Scale', 'No limits on stores, products or staff.', 2499, NULL, NULL, NULL, 10000000,
         '{"visualSearch": true, "sponsoredListings": true, "customDomain": true}', 3)`);

    await q.query(`
      CREATE TABLE billing_subscriptions (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        plan_code text NOT NULL REFERENCES billing_plans(code),
        pending_plan_code text NULL REFERENCES billing_plans(code),
        status text NOT NULL CHECK (status IN ('ACTIVE', 'CANCELLED')),
        current_period_start timestamptz NOT NULL,
        current_period_end timestamptz NULL,
        cancel_at_period_end boolean NOT NULL DEFAULT false,
        cancelled_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      "CREATE INDEX billing_subscriptions_due ON billing_subscriptions (current_period_end) WHERE cancel_at_period_end AND status = 'ACTIVE'",
    );

    await q.query(`
      CREATE TABLE billing_invoice_counters (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        year integer NOT NULL,
        last_number integer NOT NULL,
        PRIMARY KEY (tenant_id, year)
      )`);

    await q.query(`
      CREATE TABLE billing_invoices (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        number text NULL,
        status text NOT NULL CHECK (status IN ('DRAFT', 'OPEN', 'PAID', 'FAILED', 'VOID')),
        plan_code text NULL REFERENCES billing_plans(code),
        currency text NOT NULL,
        lines jsonb NOT NULL,
        vat_rate numeric(6, 3) NOT NULL,
        subtotal numeric(14, 4) NOT NULL,
        vat_amount numeric(14, 4) NOT NULL,
        total numeric(14, 4) NOT NULL,
        period_start timestamptz NULL,
        period_end timestamptz NULL,
        due_at timestamptz NULL,
        issued_at timestamptz NULL,
        paid_at timestamptz NULL,
        purchase_id uuid NULL,
        attempts integer NOT NULL DEFAULT 0,
        last_error text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((number IS NULL) = (status = 'DRAFT'))
      )`);
    await q.query('CREATE UNIQUE INDEX billing_invoices_number ON billing_invoices (tenant_id, number) WHERE number IS NOT NULL');
    await q.query('CREATE INDEX billing_invoices_tenant ON billing_invoices (tenant_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX billing_invoices_list ON billing_invoices (created_at DESC, id DESC)');

    await q.query(`
      CREATE TABLE billing_plan_purchases (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        plan_code text NOT NULL REFERENCES billing_plans(code),
        amount numeric(14, 4) NOT NULL CHECK (amount > 0),
        currency text NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'REQUIRES_ACTION', 'PAID', 'FAILED')),
        provider text NULL,
        provider_payment_id text NULL,
        installments integer NOT NULL DEFAULT 1,
        card_brand text NULL,
        card_last4 text NULL,
        decline_code text NULL,
        failure_message text NULL,
        challenge_token text NULL UNIQUE,
        challenge_url text NULL,
        challenge_expires_at timestamptz NULL,
        invoice_id uuid NULL REFERENCES billing_invoices(id) ON DELETE SET NULL,
        paid_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX billing_plan_purchases_tenant ON billing_plan_purchases (tenant_id, created_at DESC)');
    await q.query(
      'CREATE UNIQUE INDEX billing_plan_purchases_provider_payment ON billing_plan_purchases (provider, provider_payment_id) WHERE provider_payment_id IS NOT NULL',
    );

    await q.query(`
      CREATE TABLE billing_payment_methods (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        provider text NOT NULL,
        card_brand text NOT NULL,
        card_last4 text NOT NULL,
        -- The provider's token of the saved card: the card itself stays with the provider.
        card_token text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE billing_dunning_cases (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        invoice_id uuid NOT NULL REFERENCES billing_invoices(id) ON DELETE CASCADE,
        step text NOT NULL CHECK (step IN ('REMINDER', 'GRACE', 'SUSPENDED', 'RESOLVED')),
        note text NULL,
        step_entered_at timestamptz NOT NULL,
        next_step_at timestamptz NULL,
        resolved_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query("CREATE UNIQUE INDEX billing_dunning_open_invoice ON billing_dunning_cases (invoice_id) WHERE step <> 'RESOLVED'");
    await q.query("CREATE INDEX billing_dunning_due ON billing_dunning_cases (next_step_at) WHERE step IN ('REMINDER', 'GRACE')");
    await q.query("CREATE INDEX billing_dunning_suspended ON billing_dunning_cases (tenant_id) WHERE step = 'SUSPENDED'");
    await q.query('CREATE INDEX billing_dunning_list ON billing_dunning_cases (created_at DESC, id DESC)');

    await q.query(`
      CREATE TABLE billing_api_call_days (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        day date NOT NULL,
        calls bigint NOT NULL,
        PRIMARY KEY (tenant_id, day)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'billing_api_call_days',
      'billing_dunning_cases',
      'billing_payment_methods',
      'billing_plan_purchases',
      'billing_invoices',
      'billing_invoice_counters',
      'billing_subscriptions',
      'billing_plans',
    ])
      await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
