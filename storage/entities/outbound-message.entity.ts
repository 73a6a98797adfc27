import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Every e-mail and SMS the platform sends, with the transport that took it (local or smtp). An SMTP
 * message is `queued` until the jobs worker handed it to SMTP after its transaction committed
 * (`sent`); a refused attempt leaves it `queued` with `last_error`, and the outbox retries it.
 */
@Entity({ name: 'outbound_messages' })
export class OutboundMessage {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId!: string | null;
  @Column('text') channel!: 'email' | 'sms';
  @Column('text') recipient!: string;
  @Column('text') template!: string;
  @Column('text', { nullable: true }) subject!: string | null;
  @Column('text') body!: string;
  @Column('text') transport!: string;
  @Column('text', { default: 'sent' }) status!: 'queued' | 'sent';
  @Column('timestamptz', { name: 'sent_at', nullable: true }) sentAt!: Date | null;
  /** Delivery attempts made by the jobs worker (SMTP only). */
  @Column('integer', { default: 0 }) attempts!: number;
  @Column('text', { name: 'last_error', nullable: true }) lastError!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
