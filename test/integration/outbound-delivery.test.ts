/**
 * The outbound port with SMTP configured, against the real test database: an e-mail written in a
 * transaction that rolls back leaves nothing and is never sent; one that commits is recorded
 * `queued` with its outbox row and reaches SMTP only through the jobs worker's delivery, once; an
 * SMTP refusal keeps it queued with the error, for the outbox to retry.
 */
import { expect } from 'chai';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { testRuntime } from '../helpers/harness';
import { OutboundMessages, type MailTransport } from '../../storage/outbound-messages';
import { jobHandlers } from '../../app/roles/jobs';

interface Sent {
  to: string;
  subject?: string;
  text: string;
}

class RecordingTransport implements MailTransport {
  readonly sent: Sent[] = [];
  refuse = false;
  async sendMail(mail: { to: string; subject?: string; text: string }): Promise<unknown> {
    if (this.refuse) throw new Error('451 try again later');
    this.sent.push({ to: mail.to, subject: mail.subject, text: mail.text });
    return {};
  }
}

describe('outbound e-mail through SMTP is sent after commit', () => {
  let dataSource: DataSource;
  let transport: RecordingTransport;
  let outbound: OutboundMessages;
  const recipients: string[] = [];

  const recipient = (label: string): string => {
    const address = `${label}-${process.pid}-${Date.now()}-${recipients.length}@outbound.test`;
    recipients.push(address);
    return address;
  };
  const messagesTo = async (to: string) =>
    dataSource.query('SELECT id, status, transport, attempts, last_error, sent_at FROM outbound_messages WHERE recipient = $1', [to]);
  const outboxRows = async (messageId: string) =>
    dataSource.query("SELECT queue, topic FROM outbox WHERE aggregate_type = 'outbound_message' AND aggregate_id = $1", [messageId]);

  before(async () => {
    dataSource = (await testRuntime()).dataSource;
    transport = new RecordingTransport();
    outbound = new OutboundMessages(pino({ level: 'silent' }), transport, 'platform@outbound.test');
  });

  after(async () => {
    // The rows of this file are delivered here, not by the relays of other test files.
    await dataSource.query(
      `UPDATE outbox SET status = 'done', done_at = now() WHERE aggregate_type = 'outbound_message'
         AND aggregate_id IN (SELECT id::text FROM outbound_messages WHERE recipient = ANY($1))`,
      [recipients],
    );
  });

  const mail = (to: string) => ({ channel: 'email' as const, to, template: 'test', subject: 'Hello', body: 'Body text' });

  it('writes nothing and sends nothing for a transaction that rolls back', async () => {
    const to = recipient('rolled-back');
    await dataSource
      .transaction(async (manager) => {
        await outbound.send(manager, mail(to));
        throw new Error('the write fails after the e-mail was queued');
      })
      .catch(() => undefined);
    expect(await messagesTo(to)).to.deep.equal([]);
    expect(transport.sent.filter((m) => m.to === to)).to.deep.equal([]);
  });

  it('queues a committed e-mail with its outbox row, and the jobs worker sends it once', async () => {
    const to = recipient('committed');
    await dataSource.transaction((manager) => outbound.send(manager, mail(to)));
    const [queued] = await messagesTo(to);
    expect(queued).to.include({ status: 'queued', transport: 'smtp', attempts: 0, sent_at: null });
    expect(await outboxRows(queued.id)).to.deep.equal([{ queue: 'jobs', topic: 'outbound_message.send' }]);
    expect(
      transport.sent.filter((m) => m.to === to),
      'nothing leaves before the worker delivers',
    ).to.deep.equal([]);

    const delivery = { aggregateType: 'outbound_message', aggregateId: queued.id } as never;
    const services = { outbound } as never;
    await jobHandlers.outbound_message(delivery, { dataSource, logger: pino({ level: 'silent' }), services });
    expect(transport.sent.filter((m) => m.to === to)).to.deep.equal([{ to, subject: 'Hello', text: 'Body text' }]);
    const [sent] = await messagesTo(to);
    expect(sent).to.include({ status: 'sent', attempts: 1, last_error: null });
    expect(sent.sent_at).to.be.instanceOf(Date);

    // A redelivered job (the outbox delivers at least once) sends nothing more.
    expect(await outbound.deliver(dataSource, queued.id)).to.equal('skipped');
    expect(transport.sent.filter((m) => m.to === to)).to.have.length(1);
  });

  it('keeps an e-mail SMTP refused queued with the error, and sends it on the retry', async () => {
    const to = recipient('refused');
    await dataSource.transaction((manager) => outbound.send(manager, mail(to)));
    const [queued] = await messagesTo(to);
    transport.refuse = true;
    try {
      let failed: unknown;
      await outbound.deliver(dataSource, queued.id).catch((error: unknown) => (failed = error));
      expect(String(failed)).to.match(/451/);
    } finally {
      transport.refuse = false;
    }
    expect((await messagesTo(to))[0]).to.include({ status: 'queued', attempts: 1, last_error: '451 try again later' });
    expect(await outbound.deliver(dataSource, queued.id)).to.equal('sent');
    expect((await messagesTo(to))[0]).to.include({ status: 'sent', attempts: 2, last_error: null });
  });

  it('records e-mail without SMTP as sent locally, with no outbox row', async () => {
    const local = new OutboundMessages(pino({ level: 'silent' }), undefined, 'platform@outbound.test');
    const to = recipient('local');
    await dataSource.transaction((manager) => local.send(manager, mail(to)));
    const [row] = await messagesTo(to);
    expect(row).to.include({ status: 'sent', transport: 'local' });
    expect(await outboxRows(row.id)).to.deep.equal([]);
  });
});
