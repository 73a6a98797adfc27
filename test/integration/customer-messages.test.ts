/**
 * The customer message pipeline (storage/customer-messages.ts) against the real database and a real
 * SMTP server (the local sink, lib/smtp-sink.ts): nothing is sent for a rolled-back write;
 * suppression beats the customer's preference, which beats the tenant's policy; TRANSACTIONAL always
 * goes; a dedupe key sends once; delivery survives a worker that dies mid-send without a second copy
 * reaching the sink; held messages become one digest per customer when the clock reaches the hour.
 */
import { expect } from 'chai';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import type { TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { customer, merchant, type Merchant } from '../helpers/fixtures';
import { uniqueEmail } from '../helpers/accounts';
import { startSmtpSink, type SmtpSink } from '../../lib/smtp-sink';
import { OutboundMessages, type MailTransport } from '../../storage/outbound-messages';
import { emailHash, queueCustomerMessage, type CustomerMessage } from '../../storage/customer-messages';
import { inTransaction, systemContext, type RequestContext } from '../../storage/request-context';
import { uuidv7 } from '../../storage/ids';
import { jobHandlers } from '../../app/roles/jobs';
import { duePeriod, runDigestPass } from '../../api/notification-preferences/digest-scheduler';
import nodemailer from 'nodemailer';

describe('customer messages: the pipeline', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let sink: SmtpSink;
  let smtp: OutboundMessages;
  let m: Merchant;
  let dataSource: DataSource;
  const logger = pino({ level: 'silent' });

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => dataSource.query(sql, params);
  /** A context of the merchant's tenant whose outbound port sends to the sink. */
  const ctxFor = (tenantId: string, outbound: OutboundMessages = smtp): RequestContext =>
    systemContext(dataSource, uuidv7(), tenantId, 'test', { ...server.runtime.services, outbound });
  const queue = (message: Partial<CustomerMessage> & { customerId: string }, tenant = m, outbound = smtp) =>
    inTransaction(ctxFor(tenant.owner.tenantId, outbound), (tx) =>
      queueCustomerMessage(tx, {
        storeId: tenant.storeId,
        category: 'MARKETING',
        channel: 'email',
        template: 'test',
        subject: 'Hi',
        body: 'Body',
        ...message,
      }),
    );
  const suppress = (customerEmail: string, storeId: string | null, tenantId: string | null) =>
    db(
      `INSERT INTO email_suppression_entries (id, tenant_id, store_id, applies_platform, email_hash, email_domain, reason, created_by_type)
       VALUES ($1, $2, $3, $4, $5, 'example.com', 'MANUAL', 'system')`,
      [uuidv7(), tenantId, storeId, storeId === null, emailHash(customerEmail)],
    );
  const prefer = (customerId: string, category: string, enabled: boolean) =>
    db('INSERT INTO customer_notification_preferences (tenant_id, customer_id, category, enabled) VALUES ($1, $2, $3, $4)', [
      m.owner.tenantId,
      customerId,
      category,
      enabled,
    ]);
  const policy = (tenantId: string, category: string, enabled: boolean) =>
    db(
      `INSERT INTO tenant_notification_policies (tenant_id, category, enabled) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, category) DO UPDATE SET enabled = EXCLUDED.enabled`,
      [tenantId, category, enabled],
    );
  const deliverJob = (id: string, outbound: OutboundMessages = smtp) =>
    jobHandlers.outbound_message({ aggregateType: 'outbound_message', aggregateId: id } as never, {
      dataSource,
      logger,
      services: { outbound } as never,
    });
  const newCustomer = async (tenant = m) => {
    const email = uniqueEmail('cust');
    return { id: await customer(server, tenant, { email }), email };
  };

  before(async () => {
    dataSource = server.runtime.dataSource;
    sink = await startSmtpSink();
    smtp = new OutboundMessages(logger, `smtp://127.0.0.1:${sink.port}`, 'shop@messages.test');
    m = suite.addMerchant(await merchant(server));
  });
  after(async () => {
    await db(
      `UPDATE outbox SET status = 'done', done_at = now() WHERE aggregate_type = 'outbound_message'
         AND aggregate_id IN (SELECT id::text FROM outbound_messages WHERE tenant_id = $1)`,
      [m.owner.tenantId],
    );
    await sink.close();
  });

  it('records and sends nothing when the write rolls back', async () => {
    const c = await newCustomer();
    await inTransaction(ctxFor(m.owner.tenantId), async (tx) => {
      expect(
        (
          await queueCustomerMessage(tx, {
            storeId: m.storeId,
            customerId: c.id,
            category: 'MARKETING',
            channel: 'email',
            template: 't',
            body: 'b',
          })
        ).status,
      ).to.equal('queued');
      throw new Error('the write fails');
    }).catch(() => undefined);
    expect(await db('SELECT 1 FROM outbound_messages WHERE customer_id = $1', [c.id])).to.deep.equal([]);
    expect(
      await db(
        "SELECT 1 FROM outbox WHERE aggregate_type = 'outbound_message' AND aggregate_id IN (SELECT id::text FROM outbound_messages WHERE customer_id = $1)",
        [c.id],
      ),
    ).to.deep.equal([]);
  });

  it('suppression beats the preference, which beats the policy; each alone blocks', async () => {
    const other = suite.addMerchant(await merchant(server));
    // every combination of (suppressed, opted out, policy off) for MARKETING
    const expected = (s: boolean, o: boolean, p: boolean) => (s ? 'suppressed' : o ? 'opted_out' : p ? 'policy_blocked' : 'queued');
    for (const s of [false, true])
      for (const o of [false, true])
        for (const p of [false, true]) {
          const t = suite.addMerchant(await merchant(server));
          const c = await newCustomer(t);
          if (s) await suppress(c.email, t.storeId, t.owner.tenantId);
          if (o)
            await db(
              'INSERT INTO customer_notification_preferences (tenant_id, customer_id, category, enabled) VALUES ($1, $2, $3, false)',
              [t.owner.tenantId, c.id, 'MARKETING'],
            );
          if (p) await policy(t.owner.tenantId, 'MARKETING', false);
          const outcome = await queue({ customerId: c.id }, t);
          expect(outcome.status, `suppressed ${s}, opted out ${o}, policy off ${p}`).to.equal(expected(s, o, p));
          const rows = await db('SELECT status, category, store_id FROM outbound_messages WHERE customer_id = $1', [c.id]);
          expect(rows, 'only a queued message is recorded').to.have.length(expected(s, o, p) === 'queued' ? 1 : 0);
          await db(
            `UPDATE outbox SET status = 'done', done_at = now() WHERE aggregate_type = 'outbound_message'
               AND aggregate_id IN (SELECT id::text FROM outbound_messages WHERE tenant_id = $1)`,
            [t.owner.tenantId],
          );
        }
    // platform-wide suppression applies to every store; another store's entry does not
    const c1 = await newCustomer();
    await suppress(c1.email, null, null);
    expect((await queue({ customerId: c1.id, category: 'ORDER_UPDATES' })).status).to.equal('suppressed');
    const c2 = await newCustomer();
    await suppress(c2.email, other.storeId, other.owner.tenantId);
    expect((await queue({ customerId: c2.id })).status).to.equal('queued');
    // an opt-out of one category leaves the others
    const c3 = await newCustomer();
    await prefer(c3.id, 'NEWSLETTER', false);
    expect((await queue({ customerId: c3.id, category: 'NEWSLETTER' })).status).to.equal('opted_out');
    expect((await queue({ customerId: c3.id, category: 'ORDER_UPDATES' })).status).to.equal('queued');
  });

  it('always sends TRANSACTIONAL messages unless the address is suppressed, even with the digest on', async () => {
    const t = suite.addMerchant(await merchant(server));
    const c = await newCustomer(t);
    await db('INSERT INTO customer_notification_preferences (tenant_id, customer_id, category, enabled) VALUES ($1, $2, $3, false)', [
      t.owner.tenantId,
      c.id,
      'TRANSACTIONAL',
    ]);
    await policy(t.owner.tenantId, 'TRANSACTIONAL', false);
    await db("INSERT INTO tenant_notification_digests (tenant_id, frequency, hour, time_zone) VALUES ($1, 'DAILY', 8, 'UTC')", [
      t.owner.tenantId,
    ]);
    const outcome = await queue({ customerId: c.id, category: 'TRANSACTIONAL' }, t);
    expect(outcome.status).to.equal('queued');
    const [row] = await db('SELECT status, category, store_id, customer_id FROM outbound_messages WHERE customer_id = $1', [c.id]);
    expect(row).to.deep.equal({ status: 'queued', category: 'TRANSACTIONAL', store_id: t.storeId, customer_id: c.id });
    await suppress(c.email, t.storeId, t.owner.tenantId);
    expect((await queue({ customerId: c.id, category: 'TRANSACTIONAL' }, t)).status).to.equal('suppressed');
    await db("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND aggregate_type = 'outbound_message'", [
      t.owner.tenantId,
    ]);
  });

  it('sends once per store and dedupe key, and refuses customers of other tenants or without an address', async () => {
    const c = await newCustomer();
    const key = `campaign-${uuidv7()}`;
    const first = await queue({ customerId: c.id, dedupeKey: key });
    expect(first.status).to.equal('queued');
    expect(await queue({ customerId: c.id, dedupeKey: key })).to.deep.equal({ status: 'duplicate' });
    expect(await db('SELECT 1 FROM outbound_messages WHERE dedupe_key = $1', [key])).to.have.length(1);
    const other = suite.addMerchant(await merchant(server));
    const theirs = await newCustomer(other);
    expect(await queue({ customerId: theirs.id })).to.deep.equal({ status: 'no_address' });
    expect(await queue({ customerId: c.id, channel: 'sms' })).to.deep.equal({ status: 'no_address' });
  });

  it('delivers through a real SMTP server: the sink receives the message and reads it back', async () => {
    const c = await newCustomer();
    const outcome = await queue({ customerId: c.id, subject: 'Real mail', body: 'Hello from the pipeline' });
    if (outcome.status !== 'queued') throw new Error(outcome.status);
    await deliverJob(outcome.messageId);
    const received = sink.messages.filter((mail) => mail.to.includes(c.email));
    expect(received).to.have.length(1);
    expect(received[0]).to.include({ subject: 'Real mail', from: 'shop@messages.test', messageId: `<${outcome.messageId}@messages.test>` });
    expect(received[0]!.text).to.include('Hello from the pipeline');
    const [row] = await db('SELECT status, smtp_message_id, attempts FROM outbound_messages WHERE id = $1', [outcome.messageId]);
    expect(row).to.deep.equal({ status: 'sent', smtp_message_id: `<${outcome.messageId}@messages.test>`, attempts: 1 });
  });

  it('a worker dying after SMTP accepted: the redelivered job sends again under the same Message-ID, and the sink keeps one copy', async () => {
    const real = nodemailer.createTransport(`smtp://127.0.0.1:${sink.port}`);
    let dieAfterSending = true;
    const dying: MailTransport = {
      async sendMail(mail) {
        await real.sendMail(mail);
        if (dieAfterSending) await new Promise(() => undefined); // the process is killed here: never marks the row
        return {};
      },
    };
    const crashing = new OutboundMessages(logger, dying, 'shop@messages.test');
    const c = await newCustomer();
    const outcome = await queue({ customerId: c.id, subject: 'Once', body: 'Exactly once' });
    if (outcome.status !== 'queued') throw new Error(outcome.status);
    void deliverJob(outcome.messageId, crashing); // abandoned mid-send, as a killed worker
    for (let i = 0; i < 100 && sink.messages.filter((x) => x.to.includes(c.email)).length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await db('SELECT status FROM outbound_messages WHERE id = $1', [outcome.messageId]))[0].status).to.equal('sending');
    const duplicatesBefore = sink.duplicates;
    dieAfterSending = false;
    await deliverJob(outcome.messageId, crashing); // the outbox delivers the job again
    expect(sink.messages.filter((x) => x.to.includes(c.email))).to.have.length(1);
    expect(sink.duplicates - duplicatesBefore).to.equal(1);
    const [row] = await db('SELECT status, attempts FROM outbound_messages WHERE id = $1', [outcome.messageId]);
    expect(row).to.deep.equal({ status: 'sent', attempts: 2 });
    await deliverJob(outcome.messageId, crashing); // a third delivery sends nothing
    expect(sink.duplicates - duplicatesBefore).to.equal(1);
  });

  it('holds non-transactional mail while the digest is on, and sends one digest per customer at the hour (moved clock)', async () => {
    const t = suite.addMerchant(await merchant(server));
    await db("INSERT INTO tenant_notification_digests (tenant_id, frequency, hour, time_zone) VALUES ($1, 'DAILY', 9, 'Europe/Istanbul')", [
      t.owner.tenantId,
    ]);
    const a = await newCustomer(t);
    const b = await newCustomer(t);
    for (const [c, subject] of [
      [a, 'A1'],
      [a, 'A2'],
      [b, 'B1'],
    ] as const)
      expect((await queue({ customerId: c.id, subject, body: `body ${subject}`, category: 'NEWSLETTER' }, t)).status).to.equal('queued');
    expect(
      await db("SELECT status FROM outbound_messages WHERE tenant_id = $1 AND customer_id IS NOT NULL AND status <> 'held'", [
        t.owner.tenantId,
      ]),
    ).to.deep.equal([]);
    expect(await db("SELECT 1 FROM outbox WHERE tenant_id = $1 AND aggregate_type = 'outbound_message'", [t.owner.tenantId])).to.deep.equal(
      [],
    );
    const ctx = ctxFor(t.owner.tenantId);
    const future = new Date(Date.now() + 2 * 86_400_000);
    const day = future.toISOString().slice(0, 10);
    // 05:30 UTC is 08:30 in Istanbul: before the hour
    expect(await runDigestPass(ctx, new Date(`${day}T05:30:00Z`))).to.equal(0);
    // 06:05 UTC is 09:05 in Istanbul
    expect(await runDigestPass(ctx, new Date(`${day}T06:05:00Z`))).to.be.at.least(2);
    const digests = await db(
      "SELECT id, customer_id, recipient, status, subject, body FROM outbound_messages WHERE tenant_id = $1 AND template = 'customer.digest' ORDER BY recipient",
      [t.owner.tenantId],
    );
    expect(digests.map((d) => [d.customer_id, d.status, d.subject])).to.have.deep.members([
      [a.id, 'queued', 'Your updates (2)'],
      [b.id, 'queued', 'Your updates (1)'],
    ]);
    const forA = digests.find((d) => d.customer_id === a.id)!;
    expect(forA.body).to.include('body A1').and.include('body A2');
    const held = await db('SELECT status, digest_message_id FROM outbound_messages WHERE customer_id = $1 AND template = $2', [
      a.id,
      'test',
    ]);
    expect(held).to.deep.equal([
      { status: 'digested', digest_message_id: forA.id },
      { status: 'digested', digest_message_id: forA.id },
    ]);
    // the same period again sends nothing
    expect(await runDigestPass(ctx, new Date(`${day}T07:00:00Z`))).to.equal(0);
    await db("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND aggregate_type = 'outbound_message'", [
      t.owner.tenantId,
    ]);
  });

  it('decides when a digest is due: the hour in the time zone, Mondays for WEEKLY, once per local day, at once when OFF', () => {
    const at = (iso: string) => new Date(iso);
    const daily = { frequency: 'DAILY', hour: 9, timeZone: 'America/New_York', lastPeriod: null };
    expect(duePeriod(daily, at('2030-01-07T13:59:00Z'))).to.equal(null); // 08:59 in New York
    expect(duePeriod(daily, at('2030-01-07T14:00:00Z'))).to.equal('2030-01-07');
    expect(duePeriod({ ...daily, lastPeriod: '2030-01-07' }, at('2030-01-07T20:00:00Z'))).to.equal(null);
    expect(duePeriod(daily, at('2030-01-08T03:00:00Z')), '22:00 on the 7th in New York').to.equal('2030-01-07');
    const weekly = { ...daily, frequency: 'WEEKLY' };
    expect(duePeriod(weekly, at('2030-01-07T15:00:00Z')), 'Monday').to.equal('2030-01-07');
    expect(duePeriod(weekly, at('2030-01-08T15:00:00Z')), 'Tuesday').to.equal(null);
    expect(duePeriod({ ...daily, frequency: 'OFF' }, at('2030-01-07T01:00:00Z'))).to.match(/^release-/);
  });

  it('sends the held messages at the next pass once the tenant turns its digest OFF', async () => {
    const t = suite.addMerchant(await merchant(server));
    await db("INSERT INTO tenant_notification_digests (tenant_id, frequency, hour, time_zone) VALUES ($1, 'WEEKLY', 23, 'UTC')", [
      t.owner.tenantId,
    ]);
    const c = await newCustomer(t);
    expect((await queue({ customerId: c.id, subject: 'Held', category: 'MARKETING' }, t)).status).to.equal('queued');
    await db("UPDATE tenant_notification_digests SET frequency = 'OFF' WHERE tenant_id = $1", [t.owner.tenantId]);
    expect((await queue({ customerId: c.id, subject: 'Direct', category: 'MARKETING' }, t)).status).to.equal('queued');
    await runDigestPass(ctxFor(t.owner.tenantId), new Date(Date.now() + 1000));
    const rows = await db('SELECT subject, status, template FROM outbound_messages WHERE customer_id = $1 ORDER BY created_at, id', [c.id]);
    expect(rows.map((r) => [r.subject, r.status])).to.deep.equal([
      ['Held', 'digested'],
      ['Direct', 'queued'],
      ['Your updates (1)', 'queued'],
    ]);
    await db("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND aggregate_type = 'outbound_message'", [
      t.owner.tenantId,
    ]);
  });
});
