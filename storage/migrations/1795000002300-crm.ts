import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The CRM of the platform's sales team (docs/crm.md). Leads are platform data: no tenant column; a
 * lead may be linked to one store of any tenant once that store exists.
 * - leads: one prospective or existing customer, its stage in the pipeline and its follow-up date;
 * - lead_stage_changes: every stage a lead entered (from_stage NULL on creation), read by the
 *   pipeline overview (conversion between stages, time in stage) and the operations report;
 * - lead_activities: calls, e-mails, meetings and tasks of a lead, with an assignee and completion;
 * - lead_plan_requests: bank-transfer and payment-link requests for a plan, recorded with a reference
 *   until billing exists (status REQUESTED only);
 * - one_time_tokens gains the purpose `lead_store_invitation` (the e-mailed store invitation).
 */
export class Crm1795000002300 implements MigrationInterface {
  name = 'Crm1795000002300';

  async up(q: QueryRunner): Promise<void> {
    const stages = `'NEW', 'QUALIFIED', 'CONTACTED', 'DEMO_SCHEDULED', 'PROPOSAL_SENT', 'WON', 'LOST', 'TRIAL_STARTED', 'ONBOARDING_IN_PROGRESS', 'ACTIVATED', 'EXPANSION_CANDIDATE', 'CHURN_RISK'`;
    await q.query(`
      CREATE TABLE leads (
        id uuid PRIMARY KEY,
        stage text NOT NULL DEFAULT 'NEW' CHECK (stage IN (${stages})),
        owner_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        company_name text NOT NULL CHECK (char_length(company_name) BETWEEN 1 AND 200),
        contact_name text NULL CHECK (char_length(contact_name) <= 200),
        contact_email text NULL CHECK (char_length(contact_email) <= 254),
        contact_phone text NULL CHECK (char_length(contact_phone) <= 40),
        source text NOT NULL CHECK (source IN ('DEMO_REQUEST', 'WEBSITE', 'REFERRAL', 'OUTBOUND', 'EVENT', 'PARTNER', 'OTHER')),
        expected_plan text NULL CHECK (char_length(expected_plan) <= 100),
        expected_value numeric(14, 2) NULL CHECK (expected_value >= 0),
        currency char(3) NOT NULL DEFAULT 'TRY',
        next_follow_up_at timestamptz NULL,
        notes text NULL CHECK (char_length(notes) <= 10000),
        store_id uuid NULL REFERENCES stores(id) ON DELETE SET NULL,
        lost_reason text NULL CHECK (char_length(lost_reason) <= 1000),
        stage_changed_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT leads_lost_reason CHECK (stage <> 'LOST' OR lost_reason IS NOT NULL)
      )`);
    // The list (newest first) by stage, by owner, and the follow-up filters and statistics.
    await q.query('CREATE INDEX leads_stage ON leads (stage, id DESC)');
    await q.query('CREATE INDEX leads_owner ON leads (owner_user_id, id DESC)');
    await q.query('CREATE INDEX leads_follow_up ON leads (next_follow_up_at, id DESC)');
    // One lead per store; the demo request's repeat within 24 hours.
    await q.query('CREATE UNIQUE INDEX leads_store ON leads (store_id) WHERE store_id IS NOT NULL');
    await q.query(`CREATE INDEX leads_demo_email ON leads (lower(contact_email), created_at) WHERE source = 'DEMO_REQUEST'`);

    await q.query(`
      CREATE TABLE lead_stage_changes (
        id uuid PRIMARY KEY,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        from_stage text NULL CHECK (from_stage IN (${stages})),
        to_stage text NOT NULL CHECK (to_stage IN (${stages})),
        changed_at timestamptz NOT NULL DEFAULT now(),
        actor_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL
      )`);
    await q.query('CREATE INDEX lead_stage_changes_lead ON lead_stage_changes (lead_id, changed_at, id)');
    await q.query('CREATE INDEX lead_stage_changes_to ON lead_stage_changes (to_stage, changed_at)');

    await q.query(`
      CREATE TABLE lead_activities (
        id uuid PRIMARY KEY,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('CALL', 'EMAIL', 'MEETING', 'TASK')),
        subject text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
        notes text NULL CHECK (char_length(notes) <= 5000),
        due_at timestamptz NULL,
        assignee_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        completed_at timestamptz NULL,
        completed_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        created_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX lead_activities_lead ON lead_activities (lead_id, id DESC)');
    await q.query('CREATE INDEX lead_activities_completed ON lead_activities (completed_at) WHERE completed_at IS NOT NULL');

    await q.query(`
      CREATE TABLE lead_plan_requests (
        id uuid PRIMARY KEY,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('BANK_TRANSFER', 'PAYMENT_LINK')),
        reference text NOT NULL UNIQUE,
        plan text NOT NULL CHECK (char_length(plan) BETWEEN 1 AND 100),
        amount numeric(14, 2) NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        status text NOT NULL DEFAULT 'REQUESTED' CHECK (status IN ('REQUESTED')),
        sent_to text NULL,
        created_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX lead_plan_requests_lead ON lead_plan_requests (lead_id, id)');

    await q.query('ALTER TABLE one_time_tokens DROP CONSTRAINT one_time_tokens_purpose_check');
    await q.query(`
      ALTER TABLE one_time_tokens ADD CONSTRAINT one_time_tokens_purpose_check
        CHECK (purpose IN ('verify_email', 'reset_password', 'two_factor_challenge', 'recovery_code', 'lead_store_invitation'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM one_time_tokens WHERE purpose = 'lead_store_invitation'`);
    await q.query('ALTER TABLE one_time_tokens DROP CONSTRAINT one_time_tokens_purpose_check');
    await q.query(`
      ALTER TABLE one_time_tokens ADD CONSTRAINT one_time_tokens_purpose_check
        CHECK (purpose IN ('verify_email', 'reset_password', 'two_factor_challenge', 'recovery_code'))`);
    await q.query('DROP TABLE lead_plan_requests');
    await q.query('DROP TABLE lead_activities');
    await q.query('DROP TABLE lead_stage_changes');
    await q.query('DROP TABLE leads');
  }
}
