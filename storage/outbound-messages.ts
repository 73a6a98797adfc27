/**
 * The one port for outgoing e-mail and SMS. Every message is recorded in outbound_messages (so
 * developers and tests can read what was sent); with SMTP_URL set, e-mail also goes out over SMTP.
 * There is no SMS provider yet: SMS are recorded only.
 */
import nodemailer from 'nodemailer';
import type { EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { OutboundMessage } from './entities';
import { uuidv7 } from './ids';

export interface OutgoingMessage {
  channel: 'email' | 'sms';
  to: string;
  template: string;
  subject?: string;
  body: string;
  tenantId?: string | null;
}

export class OutboundMessages {
  private readonly smtp?: nodemailer.Transporter;

  constructor(
    private readonly logger: Logger,
    smtpUrl: string | undefined,
    private readonly from: string,
  ) {
    if (smtpUrl) this.smtp = nodemailer.createTransport(smtpUrl);
  }

  /** Records the message with `manager` (the caller's transaction when there is one) and sends it. */
  async send(manager: EntityManager, message: OutgoingMessage): Promise<void> {
    const transport = message.channel === 'email' && this.smtp ? 'smtp' : 'local';
    await manager.insert(OutboundMessage, {
      id: uuidv7(),
      tenantId: message.tenantId ?? null,
      channel: message.channel,
      recipient: message.to,
      template: message.template,
      subject: message.subject ?? null,
      body: message.body,
      transport,
      status: transport === 'smtp' ? 'queued' : 'sent',
    });
    if (transport === 'smtp') {
      this.smtp!.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.body }).catch((error: unknown) =>
        this.logger.error({ err: error, template: message.template }, 'SMTP delivery failed'),
      );
    }
  }
}
