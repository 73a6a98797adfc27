import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type OutboxStatus = 'pending' | 'in_flight' | 'done';

/**
 * One change that a background consumer (indexer, vision, jobs, webhooks) must see. Written in the
 * same transaction as the change itself; see storage/outbox.ts for its life cycle.
 */
@Entity({ name: 'outbox' })
@Index('outbox_claimable', ['status', 'availableAt'])
@Index('outbox_aggregate', ['queue', 'aggregateType', 'aggregateId', 'status'])
export class OutboxMessage {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'uuid', nullable: true })
  tenantId!: string | null;

  /** The bee-queue queue that consumes it: index, vision, jobs, webhooks. */
  @Column({ type: 'text' })
  queue!: string;

  /** What happened, e.g. product.updated; consumers re-read state rather than trust the payload. */
  @Column({ type: 'text' })
  topic!: string;

  @Column({ name: 'aggregate_type', type: 'text' })
  aggregateType!: string;

  @Column({ name: 'aggregate_id', type: 'text' })
  aggregateId!: string;

  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" })
  payload!: Record<string, unknown>;

  @Column({ type: 'text', default: 'pending' })
  status!: OutboxStatus;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'available_at', type: 'timestamptz', default: () => 'now()' })
  availableAt!: Date;

  @Column({ name: 'claimed_at', type: 'timestamptz', nullable: true })
  claimedAt!: Date | null;

  @Column({ name: 'claimed_by', type: 'text', nullable: true })
  claimedBy!: string | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'done_at', type: 'timestamptz', nullable: true })
  doneAt!: Date | null;
}
