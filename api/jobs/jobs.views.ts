/** What the jobs console answers: the queues and their jobs (jobs.schemas.ts QueueItem and QueueJobItem). */
import type { QueueName } from '../../storage/queues';

export interface QueueCountsView {
  waiting: number;
  active: number;
  succeeded: number;
  failed: number;
  delayed: number;
}

/** A queue with its counts (QueueItem). */
export interface QueueView {
  name: QueueName;
  paused: boolean;
  counts: QueueCountsView;
}

export interface QueueListView {
  items: QueueView[];
}

export type JobStatus = 'active' | 'waiting' | 'delayed' | 'failed';

/** A job of a queue (QueueJobItem). */
export interface QueueJobView {
  id: string;
  status: JobStatus;
  aggregateType: string | null;
  aggregateId: string | null;
  tenantId: string | null;
  createdAt: string | null;
  error: string | null;
}

export interface QueueJobListView {
  items: QueueJobView[];
}

export interface QueueJobRemovedView {
  removed: true;
  job: QueueJobView;
}
