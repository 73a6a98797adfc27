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
  /** `sending`: claimed by a worker that is handing it to SMTP; `held`: kept for the digest; `digested`: sent inside a digest. */
  @Column('text', { default: 'sent' }) status!: 'queued' | 'sending' | 'sent' | 'held' | 'digested';
  @Column('timestamptz', { name: 'sent_at', nullable: true }) sentAt!: Date | null;
  /** Delivery attempts made by the jobs worker (SMTP only). */
  @Column('integer', { default: 0 }) attempts!: number;
  @Column('text', { name: 'last_error', nullable: true }) lastError!: string | null;
  /** Messages to a store's customers (storage/customer-messages.ts). */
  @Column('uuid', { name: 'store_id', nullable: true }) storeId!: string | null;
  @Column('uuid', { name: 'customer_id', nullable: true }) customerId!: string | null;
  @Column('text', { nullable: true }) category!: string | null;
  @Column('text', { name: 'dedupe_key', nullable: true }) dedupeKey!: string | null;
  /** The Message-ID the message is handed to SMTP with (set when a worker claims it). */
  @Column('text', { name: 'smtp_message_id', nullable: true }) smtpMessageId!: string | null;
  /** A `digested` message: the digest e-mail that carried it. */
  @Column('uuid', { name: 'digest_message_id', nullable: true }) digestMessageId!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
