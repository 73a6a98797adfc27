/**
 * A private set of PostgreSQL, Redis and Meilisearch for the fault suite, run by scripts/services
 * itself (SERVICES_DATA_DIR + free ports), so the suite kills and restarts real servers started the
 * way operators start them, and never touches the shared ones under .data/ that other tests use.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../lib/config';
import { freePort, pidAlive, waitFor } from './util';

const run = promisify(execFile);

export type ServiceName = 'postgres' | 'redis' | 'meilisearch';

export class PrivateServices {
  readonly ports = { pg: 0, redis: 0, meili: 0 };
  masterKey = '';

  constructor(readonly dir: string) {}

  get databaseUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.ports.pg}/commerce`;
  }

  get redisUrl(): string {
    return `redis://127.0.0.1:${this.ports.redis}`;
  }

  get meiliUrl(): string {
    return `http://127.0.0.1:${this.ports.meili}`;
  }

  /** Where scripts/services writes each service's log (copied next to the role logs at the end). */
  get logDir(): string {
    return path.join(this.dir, 'logs');
  }

  /**
   * `scripts/services start`: starts whatever of the three is not running (so it also brings a
   * killed one back). The URL variables are removed from its environment: set, they would make the
   * script skip that service and use the shared one.
   */
  async start(): Promise<void> {
    if (!this.ports.pg) {
      this.ports.pg = await freePort();
      this.ports.redis = await freePort();
      this.ports.meili = await freePort();
    }
    await this.script('start');
    this.masterKey = fs.readFileSync(path.join(this.dir, 'meili-master-key'), 'utf8').trim();
  }

  async stop(): Promise<void> {
    if (this.ports.pg) await this.script('stop').catch(() => undefined);
  }

  /** kill -9 of Redis or Meilisearch (pid files under <dir>/run), waiting until it is gone. */
  async kill9(service: 'redis' | 'meilisearch'): Promise<void> {
    const pid = this.pidOf(service);
    process.kill(pid, 'SIGKILL');
    await waitFor(`${service} (pid ${pid}) to die after SIGKILL`, 10_000, () => !pidAlive(pid), 50);
  }

  /**
   * PostgreSQL's immediate shutdown (what `pg_ctl stop -m immediate` sends: SIGQUIT to the
   * postmaster): every backend quits at once without a checkpoint, and the next start recovers
   * from the WAL, as after a crash.
   */
  async stopPostgresImmediately(): Promise<void> {
    const pid = this.pidOf('postgres');
    process.kill(pid, 'SIGQUIT');
    await waitFor(`postgres (pid ${pid}) to stop after SIGQUIT`, 20_000, () => !pidAlive(pid), 50);
  }

  pidOf(service: ServiceName): number {
    const file = service === 'postgres' ? path.join(this.dir, 'postgres', 'postmaster.pid') : path.join(this.dir, 'run', `${service}.pid`);
    const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no pid in ${file}`);
    return pid;
  }

  private async script(command: 'start' | 'stop'): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SERVICES_DATA_DIR: this.dir,
      PG_PORT: String(this.ports.pg),
      REDIS_PORT: String(this.ports.redis),
      MEILI_PORT: String(this.ports.meili),
      SERVICES_TIMEOUT: '60',
    };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'MEILI_URL', 'MEILI_MASTER_KEY']) delete env[name];
    try {
      await run('bash', [path.join(PROJECT_ROOT, 'scripts', 'services'), command], { cwd: PROJECT_ROOT, env, timeout: 120_000 });
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`scripts/services ${command} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  }
}
