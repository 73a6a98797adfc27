/**
 * The one port for outgoing e-mail and SMS. Every message is recorded in outbound_messages (so
 * developers and tests can read what was sent), with the manager of the caller's transaction.
 *
 * Without SMTP_URL a message is only recorded (`local`, `sent`): nothing leaves the machine. With
 * SMTP_URL an e-mail is recorded `queued` together with an outbox row (queue `jobs`, aggregate
 * `outbound_message`) in the same transaction; the jobs worker hands it to SMTP only after that
 * transaction committed (`deliver`), so a write that rolls back sends nothing. Delivery is at least
 * once: a worker that dies between SMTP's acceptance and marking the row `sent` sends it again on
 * the outbox's redelivery (docs/messaging.md). There is no SMS provider yet: SMS are recorded only.
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
}

/** What the port needs of an SMTP transport (nodemailer's, or a test's). */
export interface MailTransport {
  sendMail(mail: { from: string; to: string; subject?: string; text: string }): Promise<unknown>;
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

  /** Records the message with `manager` (the caller's transaction) and, for SMTP, queues its delivery after commit. */
  async send(manager: EntityManager, message: OutgoingMessage): Promise<void> {
    const viaSmtp = message.channel === 'email' && this.smtp !== undefined;
    const id = uuidv7();
    await manager.insert(OutboundMessage, {
      id,
      tenantId: message.tenantId ?? null,
      channel: message.channel,
      recipient: message.to,
      template: message.template,
      subject: message.subject ?? null,
      body: message.body,
      transport: viaSmtp ? 'smtp' : 'local',
      status: viaSmtp ? 'queued' : 'sent',
      sentAt: viaSmtp ? null : new Date(),
    });
    if (viaSmtp) {
      await manager.insert(OutboxMessage, {
        tenantId: message.tenantId ?? null,
        queue: 'jobs',
        topic: 'outbound_message.send',
        aggregateType: 'outbound_message',
        aggregateId: id,
        payload: {},
      });
    }
  }

  /**
   * Hands one queued e-mail to SMTP (the jobs worker, after commit). A message already sent, or one
   * that no longer exists, is left alone, so a redelivered job sends nothing twice once it is marked.
   * Throws when SMTP refuses, so the outbox retries with backoff.
   */
  async deliver(dataSource: DataSource, messageId: string): Promise<'sent' | 'skipped'> {
    const row = await dataSource.manager.findOneBy(OutboundMessage, { id: messageId });
    if (!row || row.status !== 'queued' || row.channel !== 'email') return 'skipped';
    if (!this.smtp) throw new Error('an e-mail is queued for SMTP but this process has no SMTP_URL');
    await dataSource.manager.increment(OutboundMessage, { id: messageId }, 'attempts', 1);
    try {
      await this.smtp.sendMail({ from: this.from, to: row.recipient, subject: row.subject ?? undefined, text: row.body });
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      await dataSource.manager.update(OutboundMessage, { id: messageId }, { lastError: text.slice(0, ERROR_CHARS) });
      this.logger.warn({ err: error, template: row.template, messageId }, 'SMTP delivery failed; the outbox retries it');
      throw error;
    }
    await dataSource.manager.update(
      OutboundMessage,
      { id: messageId, status: 'queued' },
      { status: 'sent', sentAt: new Date(), lastError: null },
    );
    return 'sent';
  }
}
