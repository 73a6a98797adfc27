/**
 * The one port for outgoing e-mail and SMS. Every message is recorded in outbound_messages (so
 * developers and tests can read what was sent), with the manager of the caller's transaction.
 *
 * Without SMTP_URL a message is only recorded (`local`, `sent`): nothing leaves the machine. With
 * SMTP_URL an e-mail is recorded `queued` together with an outbox row (queue `jobs`, aggregate
 * `outbound_message`) in the same transaction; the jobs worker hands it to SMTP only after that
 * transaction committed (`deliver`), so a write that rolls back sends nothing. Delivery is at least
 * once: a worker that dies between SMTP's acceptance and marking the row `sent` sends it again on
 * the outbox's redelivery (docs/messaging.md). Each delivery claims the row (`sending`) and hands it to
 * SMTP under a Message-ID derived from the row's id, so a resent message carries the same Message-ID
 * and a receiver that deduplicates by Message-ID keeps one copy. There is no SMS provider yet: SMS are
 * recorded only.
 */
import nodemailer from 'nodemailer';
import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { OutboundMessage, OutboxMessage } from './entities';
import { uuidv7 } from './ids';

export interface OutgoingMessage {
  channel: 'email' | 'sms';
  to: string;
  template: string;
  subject?: string;
  body: string;
  tenantId?: string | null;
  /** Messages to a store's customers (storage/customer-messages.ts): whose and of which category. */
  storeId?: string | null;
  customerId?: string | null;
  category?: string | null;
  /** At most one message per store and key: a second one is not recorded (send returns null). */
  dedupeKey?: string | null;
  /** Kept `held` for the tenant's digest instead of being sent (nothing is queued). */
  hold?: boolean;
}

/** What the port needs of an SMTP transport (nodemailer's, or a test's). */
export interface MailTransport {
  sendMail(mail: { from: string; to: string; subject?: string; text: string; messageId?: string }): Promise<unknown>;
}

/** Longest SMTP error kept on the row. */
const ERROR_CHARS = 500;

export class OutboundMessages {
  private readonly smtp?: MailTransport;

  constructor(
    private readonly logger: Logger,
    smtp: string | MailTransport | undefined,
    private readonly from: string,
  ) {
    if (typeof smtp === 'string') this.smtp = nodemailer.createTransport(smtp);
    else if (smtp) this.smtp = smtp;
  }

  /**
   * Records the message with `manager` (the caller's transaction) and, for SMTP, queues its delivery
   * after commit. Returns the message's id, or null when its store already has a message with its
   * dedupeKey (nothing is written then).
   */
  async send(manager: EntityManager, message: OutgoingMessage): Promise<string | null> {
    const viaSmtp = message.channel === 'email' && this.smtp !== undefined;
    const held = message.hold === true;
    const id = uuidv7();
    const status = held ? 'held' : viaSmtp ? 'queued' : 'sent';
    const rows: unknown[] = await manager.query(
      `INSERT INTO outbound_messages
         (id, tenant_id, channel, recipient, template, subject, body, transport, status, sent_at, store_id, customer_id, category, dedupe_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (store_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING
       RETURNING id`,
      [
        id,
        message.tenantId ?? null,
        message.channel,
        message.to,
        message.template,
        message.subject ?? null,
        message.body,
        viaSmtp ? 'smtp' : 'local',
        status,
        status === 'sent' ? new Date() : null,
        message.storeId ?? null,
        message.customerId ?? null,
        message.category ?? null,
        message.dedupeKey ?? null,
      ],
    );
    if (rows.length === 0) return null;
    if (viaSmtp && !held) {
      await manager.insert(OutboxMessage, {
        tenantId: message.tenantId ?? null,
        queue: 'jobs',
        topic: 'outbound_message.send',
        aggregateType: 'outbound_message',
        aggregateId: id,
        payload: {},
      });
    }
    return id;
  }

  /** The Message-ID a message is handed to SMTP with: the same on every attempt. */
  messageIdOf(rowId: string): string {
    const domain = /@([^>\s]+)/.exec(this.from)?.[1] ?? 'outbound.local';
    return `<${rowId}@${domain}>`;
  }

  /**
   * Hands one queued e-mail to SMTP (the jobs worker, after commit). The worker first claims the row
   * (`sending`, with its Message-ID); a row already sent, or one that no longer exists, is left alone,
   * so a redelivered job sends nothing twice once it is marked. A row left `sending` by a worker that
   * died mid-send is sent again under the same Message-ID. Throws when SMTP refuses (the row goes back
   * to `queued`), so the outbox retries with backoff.
   */
  async deliver(dataSource: DataSource, messageId: string): Promise<'sent' | 'skipped'> {
    const row = await dataSource.manager.findOneBy(OutboundMessage, { id: messageId });
    if (!row || (row.status !== 'queued' && row.status !== 'sending') || row.channel !== 'email') return 'skipped';
    if (!this.smtp) throw new Error('an e-mail is queued for SMTP but this process has no SMTP_URL');
    const smtpMessageId = row.smtpMessageId ?? this.messageIdOf(row.id);
    const claimed = await dataSource.manager.update(
      OutboundMessage,
      { id: messageId, status: row.status },
      { status: 'sending', smtpMessageId, attempts: () => 'attempts + 1' },
    );
    if (claimed.affected !== 1) return 'skipped';
    try {
      await this.smtp.sendMail({
        from: this.from,
        to: row.recipient,
        subject: row.subject ?? undefined,
        text: row.body,
        messageId: smtpMessageId,
      });
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      await dataSource.manager.update(
        OutboundMessage,
        { id: messageId, status: 'sending' },
        { status: 'queued', lastError: text.slice(0, ERROR_CHARS) },
      );
      this.logger.warn({ err: error, template: row.template, messageId }, 'SMTP delivery failed; the outbox retries it');
      throw error;
    }
    await dataSource.manager.update(
      OutboundMessage,
      { id: messageId, status: 'sending' },
      { status: 'sent', sentAt: new Date(), lastError: null },
    );
    return 'sent';
  }
}
