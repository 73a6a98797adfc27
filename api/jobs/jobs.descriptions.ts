/** The long descriptions of the jobs route table (jobs.routes.ts), kept out of its rows. */

export const who =
  'Platform admins only (platformRole platform_admin): other platform staff answer 403 platform_role_required, merchants 403 forbidden. An unknown queue answers 404 queue_not_found.';

export const LIST_QUEUES_DESCRIPTION = `${who} Every queue of the deployment (index, vision, jobs, webhooks, import, export) with its counts and whether it is paused.`;

export const LIST_JOBS_DESCRIPTION = `${who} limit is not typed by the specification: 1 to 100 (default 20). Active jobs first, then waiting (newest first), delayed and failed ones; finished jobs are not kept.`;

export const RETRY_JOB_DESCRIPTION = `${who} Only a failed job is retried (409 job_not_failed otherwise; 404 job_not_found for an unknown id): the outbox rows of its aggregate that wait for a retry are claimed for it and the job goes back to waiting, so a worker runs it again at once.`;

export const REMOVE_JOB_DESCRIPTION = `${who} Removes the job from the queue (404 job_not_found for an unknown id). No change is lost: outbox rows of its aggregate that are not done are delivered again by the relay later (after their back-off, or OUTBOX_RECLAIM_AFTER_MS for a job that was in flight).`;

export const PAUSE_QUEUE_DESCRIPTION = `${who} Workers stop taking the queue's jobs (a job a worker already took waits, still active, until the queue is resumed); new jobs keep arriving and wait. Pausing a paused queue changes nothing. Answers the queue.`;

export const RESUME_QUEUE_DESCRIPTION = `${who} Workers take the queue's jobs again, the held ones first; none is lost. Resuming a running queue changes nothing. Answers the queue.`;
