import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Onboarding handoffs: a won lead handed from sales to the support team, with the tasks that take
 * the merchant from a signed deal to an active store (docs/back-office.md, "Onboarding handoffs").
 * One handoff per lead; its status moves through the transition table of
 * api/onboarding-handoffs/handoff-status.ts. A task belongs to the merchant, support or sales.
 * The merchant whose plan it is: the tenant of the handoff's store, or else of the lead's linked
 * store, read when needed (a lead may be linked to its store after the handoff).
 */
export class OnboardingHandoffs1795000002400 implements MigrationInterface {
  name = 'OnboardingHandoffs1795000002400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE onboarding_handoffs (
        id uuid PRIMARY KEY,
        lead_id uuid NOT NULL UNIQUE REFERENCES leads(id) ON DELETE CASCADE,
        store_id uuid NULL REFERENCES stores(id) ON DELETE SET NULL,
        status text NOT NULL DEFAULT 'PENDING'
          CHECK (status IN ('PENDING', 'ASSIGNED', 'ACCEPTED', 'INFO_MISSING', 'COMPLETED')),
        summary text NOT NULL CHECK (char_length(summary) BETWEEN 1 AND 5000),
        created_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        assignee_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        info_request text NULL,
        info_requested_at timestamptz NULL,
        info_answer text NULL,
        info_answered_at timestamptz NULL,
        accepted_at timestamptz NULL,
        completed_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX onboarding_handoffs_status ON onboarding_handoffs (status, id DESC)');
    await q.query('CREATE INDEX onboarding_handoffs_assignee ON onboarding_handoffs (assignee_user_id, id DESC)');
    await q.query('CREATE INDEX onboarding_handoffs_store ON onboarding_handoffs (store_id) WHERE store_id IS NOT NULL');
    await q.query(`
      CREATE TABLE onboarding_handoff_tasks (
        id uuid PRIMARY KEY,
        handoff_id uuid NOT NULL REFERENCES onboarding_handoffs(id) ON DELETE CASCADE,
        position integer NOT NULL,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        owner text NOT NULL CHECK (owner IN ('MERCHANT', 'SUPPORT', 'SALES')),
        due_date date NULL,
        completed_at timestamptz NULL,
        completed_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        completion_note text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT onboarding_handoff_tasks_position UNIQUE (handoff_id, position)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS onboarding_handoff_tasks');
    await q.query('DROP TABLE IF EXISTS onboarding_handoffs');
  }
}
