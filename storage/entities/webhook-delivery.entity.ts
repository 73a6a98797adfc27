import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'DEAD';

/**
 * One event to one endpoint (or, for the webhook tester, to a URL). `id` is the deliveryId of the
 * envelope; `body` is the envelope as sent, frozen at fan-out. `attempts` counts the attempts of the
 * current round (a replay starts a new round), `totalAttempts` all of them.
 */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'endpoint_id', nullable: true }) endpointId!: string | null;
  @Column('uuid', { name: 'event_id' }) eventId!: string;
  @Column('text') topic!: string;
  @Column('text', { nullable: true }) url!: string | null;
  @Column('boolean', { name: 'is_test', default: false }) isTest!: boolean;
  @Column('text') body!: string;
  @Column('text', { default: 'PENDING' }) status!: WebhookDeliveryStatus;
  @Column('integer', { default: 0 }) attempts!: number;
  @Column('integer', { name: 'total_attempts', default: 0 }) totalAttempts!: number;
  @Column('integer', { default: 0 }) replays!: number;
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true }) nextAttemptAt!: Date | null;
  @Column('timestamptz', { name: 'claimed_until', nullable: true }) claimedUntil!: Date | null;
  @Column('uuid', { name: 'claim_token', nullable: true }) claimToken!: string | null;
  @Column('integer', { name: 'last_status_code', nullable: true }) lastStatusCode!: number | null;
  @Column('text', { name: 'last_error', nullable: true }) lastError!: string | null;
  @Column('timestamptz', { name: 'last_attempt_at', nullable: true }) lastAttemptAt!: Date | null;
  @Column('timestamptz', { name: 'delivered_at', nullable: true }) deliveredAt!: Date | null;
  @Column('timestamptz', { name: 'dead_at', nullable: true }) deadAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** One attempt of a delivery: what the receiver answered (or why no answer came). */
@Entity({ name: 'webhook_attempts' })
export class WebhookAttempt {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'delivery_id' }) deliveryId!: string;
  @Column('integer') number!: number;
  @Column('text') outcome!: 'SUCCESS' | 'FAILURE';
  @Column('integer', { name: 'status_code', nullable: true }) statusCode!: number | null;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('integer', { name: 'duration_ms' }) durationMs!: number;
  @Column('timestamptz', { name: 'attempted_at', default: () => 'now()' }) attemptedAt!: Date;
}
