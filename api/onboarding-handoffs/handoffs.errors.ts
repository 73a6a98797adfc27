/**
 * The error codes of onboarding handoffs and the merchant's onboarding plan: each code once, with
 * its HTTP status and meaning; the API reference lists them (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const HANDOFFS_ERRORS = defineErrorCodes('onboarding-handoffs', {
  lead_not_found: { status: 404, description: 'The lead does not exist.' },
  handoff_not_found: { status: 404, description: 'The onboarding handoff does not exist (or the lead has none).' },
  handoff_task_not_found: { status: 404, description: 'The task does not exist in this handoff.' },
  store_not_found: { status: 404, description: 'The store named for the handoff does not exist.' },
  lead_not_won: { status: 409, description: 'Only a WON lead is handed off to onboarding.' },
  handoff_exists: { status: 409, description: 'The lead already has an onboarding handoff.' },
  handoff_transition_refused: {
    status: 409,
    description: "The handoff's status does not allow this step (docs/back-office.md lists the allowed moves).",
  },
  handoff_not_assignee: {
    status: 409,
    description: 'The handoff is assigned to another agent; only they (or a platform admin) may work it.',
  },
  handoff_tasks_open: { status: 409, description: 'A handoff is completed only once every task is done.' },
  handoff_task_state: { status: 409, description: 'The task is already completed (complete) or not completed (reopen).' },
  handoff_answer_required: { status: 400, description: 'Answering an information request needs the answer in `note`.' },
});

export const handoffsError = HANDOFFS_ERRORS.error;
