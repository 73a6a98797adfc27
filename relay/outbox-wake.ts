/**
 * Wakes the outbox relay the moment a transaction that wrote outbox rows commits, instead of at its
 * next poll (PostgreSQL LISTEN/NOTIFY: a statement trigger on the outbox table notifies inside the
 * writing transaction, migration 1795000001600, and PostgreSQL delivers it only on commit, so a
 * rolled-back write never wakes anybody).
 *
 * The notification is only a hint: the relay still polls, so a lost connection, a notification
 * missed while reconnecting or a deployment without this listener delays rows by at most one poll
 * interval and loses nothing.
 */
import { Client } from 'pg';
import type { Logger } from 'pino';
import { OUTBOX_CHANNEL } from '../storage/outbox';
import { calmLog } from '../lib/calm-log';

export class OutboxWakeListener {
  private client: Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly onWake: () => void,
    private readonly logger: Logger,
    private readonly reconnectMs = 1_000,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.connectionString, application_name: 'commerce-outbox-listener' });
    const lost = (error?: Error): void => {
      if (this.client !== client) return;
      this.client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      calmLog(this.logger).warn('outbox-listener', error, {}, 'outbox listener lost its connection; polling only until it reconnects');
      this.retry = setTimeout(() => void this.connect(), this.reconnectMs);
    };
    client.on('notification', () => this.onWake());
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      // Rows committed while the listener was away are found by this pass.
      this.onWake();
    } catch (error) {
      lost(error as Error);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}
