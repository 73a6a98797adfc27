/**
 * One probe per backing service, each answering "can I reach it right now" within a deadline, on a
 * connection of its own: a probe that waited in the request pool would report PostgreSQL down
 * whenever the pool is busy, and one on bee-queue's clients would wait forever while Redis is away.
 */
import { Client } from 'pg';
import { migrations } from './migrations';
import { pingRedis } from './redis-probe';
import { withTimeout } from './queues';

export type DependencyName = 'postgres' | 'redis' | 'meilisearch';
export const DEPENDENCIES: readonly DependencyName[] = ['postgres', 'redis', 'meilisearch'];

export interface ProbeTargets {
  databaseUrl: string;
  redisUrl: string;
  meiliUrl: string;
  /** Several Meilisearch nodes: each must answer (stores are spread over all of them). */
  meiliNodes?: ReadonlyArray<{ name: string; url: string }>;
}

/** The names of the migrations this build knows (as TypeORM records them in schema_migrations). */
const KNOWN_MIGRATIONS = migrations.map((migration) => new (migration as new () => { name?: string })().name ?? migration.name);

/**
 * PostgreSQL on one dedicated connection, opened on first use and again after it broke. Besides
 * reachability it tells whether every migration of this build is applied (remembered once true:
 * a running schema only moves forward).
 */
export class PostgresProbe {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private migrationsApplied = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly applicationName = 'commerce-probe',
  ) {}

  private async connection(timeoutMs: number): Promise<Client> {
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      const client = new Client({
        connectionString: this.databaseUrl,
        application_name: this.applicationName,
        connectionTimeoutMillis: timeoutMs,
        statement_timeout: timeoutMs,
      });
      client.on('error', () => this.drop(client));
      client.on('end', () => this.drop(client));
      try {
        await client.connect();
      } catch (error) {
        void client.end().catch(() => undefined);
        throw error;
      }
      this.client = client;
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private drop(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => undefined);
  }

  /** Resolves when PostgreSQL answers within `timeoutMs`. */
  async ping(timeoutMs: number): Promise<void> {
    const run = async (): Promise<void> => {
      const client = await this.connection(timeoutMs);
      try {
        await client.query('SELECT 1');
      } catch (error) {
        this.drop(client);
        throw error;
      }
    };
    await withTimeout(run(), timeoutMs, 'PostgreSQL probe');
  }

  /** Rejects while migrations of this build are not applied yet. */
  async checkMigrations(timeoutMs: number): Promise<void> {
    if (this.migrationsApplied) return;
    const check = async (): Promise<void> => {
      const client = await this.connection(timeoutMs);
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations WHERE name = ANY($1)', [
        KNOWN_MIGRATIONS,
      ]);
      if (rows[0]!.n < KNOWN_MIGRATIONS.length) throw new Error(`${KNOWN_MIGRATIONS.length - rows[0]!.n} migrations are pending`);
      this.migrationsApplied = true;
    };
    await withTimeout(check(), timeoutMs, 'migrations check');
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}

/** Meilisearch's own health route (no key needed), on a fresh request with a deadline. */
export async function pingMeilisearch(meiliUrl: string, timeoutMs: number): Promise<void> {
  const response = await fetch(new URL('/health', meiliUrl), { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`Meilisearch answered ${response.status}`);
  const body = (await response.json()) as { status?: string };
  if (body.status !== 'available') throw new Error(`Meilisearch status ${body.status}`);
}

/** Every node at once; the error names each node that did not answer. */
async function pingEveryNode(nodes: ReadonlyArray<{ name: string; url: string }>, timeoutMs: number): Promise<void> {
  const outcomes = await Promise.allSettled(nodes.map((node) => pingMeilisearch(node.url, timeoutMs)));
  const failed = outcomes.flatMap((outcome, i) =>
    outcome.status === 'rejected' ? [`node ${nodes[i]!.name}: ${(outcome.reason as Error).message}`] : [],
  );
  if (failed.length > 0) throw new Error(failed.join('; '));
}

/** The probes of every dependency of a process, sharing one PostgreSQL connection. */
export class DependencyProbes {
  readonly postgres: PostgresProbe;

  constructor(private readonly targets: ProbeTargets) {
    this.postgres = new PostgresProbe(targets.databaseUrl);
  }

  probe(name: DependencyName, timeoutMs: number): Promise<void> {
    switch (name) {
      case 'postgres':
        return this.postgres.ping(timeoutMs);
      case 'redis':
        return pingRedis(this.targets.redisUrl, timeoutMs);
      case 'meilisearch':
        return this.targets.meiliNodes
          ? pingEveryNode(this.targets.meiliNodes, timeoutMs)
          : pingMeilisearch(this.targets.meiliUrl, timeoutMs);
    }
  }

  close(): Promise<void> {
    return this.postgres.close();
  }
}
