import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants, users, sessions and their tokens, stores, API keys, the audit log and outbound messages. */
export class Accounts1795000000001 implements MigrationInterface {
  name = 'Accounts1795000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('merchant', 'partner', 'sandbox')),
        legal_name text NULL,
        country text NULL,
        default_currency text NOT NULL DEFAULT 'EUR',
        timezone text NOT NULL DEFAULT 'UTC',
        website text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        tenant_id uuid NULL REFERENCES tenants(id) ON DELETE CASCADE,
        tenant_role text NULL CHECK (tenant_role IN ('owner', 'admin', 'staff')),
        platform_role text NULL CHECK (platform_role IN ('platform_admin', 'support_agent', 'sales_rep')),
        email text NOT NULL,
        password_hash text NOT NULL,
        name text NOT NULL,
        locale text NULL,
        phone text NULL,
        phone_verified_at timestamptz NULL,
        email_verified_at timestamptz NULL,
        totp_secret_enc text NULL,
        totp_enabled_at timestamptz NULL,
        password_changed_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((tenant_id IS NULL) = (tenant_role IS NULL))
      )`);
    await q.query('CREATE UNIQUE INDEX users_email ON users (lower(email))');
    await q.query('CREATE INDEX users_tenant ON users (tenant_id)');
    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        tenant_id uuid NULL REFERENCES tenants(id) ON DELETE CASCADE,
        ip text NULL,
        user_agent text NULL,
        method text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL,
        revoke_reason text NULL
      )`);
    await q.query('CREATE INDEX sessions_user ON sessions (user_id) WHERE revoked_at IS NULL');
    await q.query(`
      CREATE TABLE refresh_tokens (
        id uuid PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL
      )`);
    await q.query(`
      CREATE TABLE one_time_tokens (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password', 'two_factor_challenge', 'recovery_code')),
        token_hash text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NULL,
        used_at timestamptz NULL
      )`);
    await q.query('CREATE UNIQUE INDEX one_time_tokens_hash ON one_time_tokens (purpose, token_hash)');
    await q.query('CREATE INDEX one_time_tokens_user ON one_time_tokens (user_id, purpose)');
    await q.query(`
      CREATE TABLE phone_otps (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        phone text NOT NULL,
        code_hash text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz NULL
      )`);
    await q.query('CREATE INDEX phone_otps_user ON phone_otps (user_id, created_at DESC)');
    await q.query(`
      CREATE TABLE device_codes (
        id uuid PRIMARY KEY,
        device_code_hash text NOT NULL UNIQUE,
        user_code text NOT NULL,
        client_name text NOT NULL,
        scopes text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
        interval_seconds integer NOT NULL,
        user_id uuid NULL REFERENCES users(id) ON DELETE CASCADE,
        last_polled_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX device_codes_user_code ON device_codes (user_code) WHERE status = 'pending'`);
    await q.query(`
      CREATE TABLE stores (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        name text NOT NULL,
        slug text NOT NULL,
        currency text NOT NULL DEFAULT 'EUR',
        default_locale text NOT NULL DEFAULT 'en',
        timezone text NOT NULL DEFAULT 'UTC',
        contact_email text NULL,
        is_default boolean NOT NULL DEFAULT false,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        archived_at timestamptz NULL
      )`);
    await q.query('CREATE UNIQUE INDEX stores_slug ON stores (lower(slug))');
    await q.query('CREATE INDEX stores_tenant ON stores (tenant_id)');
    await q.query('CREATE UNIQUE INDEX stores_one_default ON stores (tenant_id) WHERE is_default');
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL UNIQUE,
        secret_hash text NOT NULL,
        scopes text[] NOT NULL,
        created_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NULL,
        last_used_at timestamptz NULL,
        revoked_at timestamptz NULL
      )`);
    await q.query('CREATE INDEX api_keys_store ON api_keys (tenant_id, store_id)');
    await q.query(`
      CREATE TABLE audit_log (
        id uuid PRIMARY KEY,
        tenant_id uuid NULL,
        actor_type text NOT NULL,
        actor_id text NULL,
        action text NOT NULL,
        resource_type text NOT NULL,
        resource_id text NULL,
        before jsonb NULL,
        after jsonb NULL,
        ip text NULL,
        user_agent text NULL,
        request_id text NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Listing is newest first per tenant with optional filters; ids are UUIDv7, so id order is time order.
    await q.query('CREATE INDEX audit_log_tenant ON audit_log (tenant_id, id DESC)');
    await q.query(`
      CREATE TABLE outbound_messages (
        id uuid PRIMARY KEY,
        tenant_id uuid NULL,
        channel text NOT NULL CHECK (channel IN ('email', 'sms')),
        recipient text NOT NULL,
        template text NOT NULL,
        subject text NULL,
        body text NOT NULL,
        transport text NOT NULL,
        status text NOT NULL DEFAULT 'sent',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX outbound_messages_recipient ON outbound_messages (recipient, created_at DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'outbound_messages',
      'audit_log',
      'api_keys',
      'stores',
      'device_codes',
      'phone_otps',
      'one_time_tokens',
      'refresh_tokens',
      'sessions',
      'users',
      'tenants',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
