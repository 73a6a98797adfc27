/**
 * The life of an onboarding handoff: the allowed moves, one table (docs/back-office.md, "Onboarding
 * handoffs"). Every operation that changes a handoff's status goes through `assertHandoffMove`; a
 * move the table does not list is refused with 409 and changes nothing.
 *
 *   PENDING ──claim──► ASSIGNED ──accept──► ACCEPTED ──complete──► COMPLETED
 *                         │                    │  ▲
 *                         └──request-info──► INFO_MISSING (sales answers: ► ACCEPTED)
 */
import type { HandoffStatus } from '../../storage/entities/onboarding-handoff.entity';
import { handoffsError } from './handoffs.errors';

/** What each operation does to the status. */
export type HandoffMove = 'claim' | 'accept' | 'request_info' | 'answer' | 'complete';

export const HANDOFF_TRANSITIONS: Readonly<Record<HandoffMove, { from: readonly HandoffStatus[]; to: HandoffStatus }>> = {
  claim: { from: ['PENDING'], to: 'ASSIGNED' },
  accept: { from: ['ASSIGNED'], to: 'ACCEPTED' },
  request_info: { from: ['ASSIGNED', 'ACCEPTED'], to: 'INFO_MISSING' },
  answer: { from: ['INFO_MISSING'], to: 'ACCEPTED' },
  complete: { from: ['ACCEPTED'], to: 'COMPLETED' },
};

/** Task work (complete, reopen) happens while the handoff is being worked on. */
export const TASK_WORK_STATUSES: readonly HandoffStatus[] = ['ASSIGNED', 'ACCEPTED', 'INFO_MISSING'];

/** The status after `move`, or 409 handoff_transition_refused naming the current status. */
export function assertHandoffMove(current: HandoffStatus, move: HandoffMove): HandoffStatus {
  const rule = HANDOFF_TRANSITIONS[move];
  if (!rule.from.includes(current)) {
    throw handoffsError(
      'handoff_transition_refused',
      `A handoff in ${current} cannot ${move.replace('_', ' ')}; that needs ${rule.from.join(' or ')}.`,
    );
  }
  return rule.to;
}
