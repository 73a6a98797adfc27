/**
 * The platform as separate OS processes, one per role (`node dist/app/main.js` with ROLES=…), the
 * way a deployment runs it, so a fault can kill exactly one of them. Each process appends its
 * stdout and stderr to a log file of its own (kept after the run for diagnosis).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/config';
import { freePort, sleep, waitFor, within } from './util';

export type RoleName = 'api' | 'indexer' | 'jobs' | 'vision';

/** How long a process may take to start (migrations, loading modules on a busy 2-core machine). */
const START_TIMEOUT_MS = 60_000;

export class RoleProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  /** Port of the api role's HTTP server; of /livez and /readyz (HEALTH_PORT) for a worker. */
  port = 0;
  starts = 0;
  /** Kept down on purpose by the fault under way: restore() leaves it alone. */
  parked = false;

  constructor(
    readonly name: string,
    readonly role: RoleName,
    private readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  get alive(): boolean {
    return this.pid !== undefined;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the process and waits until it is ready (see waitReady). */
  async start(): Promise<void> {
    if (this.alive) throw new Error(`${this.name} is already running`);
    if (!this.port) this.port = await freePort();
    this.starts += 1;
    const log = fs.openSync(this.logFile, 'a');
    fs.writeSync(log, `\n===== start #${this.starts} of ${this.name} at ${new Date().toISOString()}\n`);
    const portVars = this.role === 'api' ? { PORT: String(this.port), PUBLIC_BASE_URL: this.baseUrl } : { HEALTH_PORT: String(this.port) };
    const child = spawn(process.execPath, ['--enable-source-maps', path.join(PROJECT_ROOT, 'dist', 'app', 'main.js')], {
      cwd: PROJECT_ROOT,
      // The indexer process also relays the outbox, as one process of a small deployment would.
      env: { ...this.env, ROLES: this.role === 'indexer' ? 'relay,indexer' : this.role, ...portVars },
      // Straight into the file: nothing in this process has to drain a pipe, and the log survives a kill.
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
    await this.waitReady(this.starts);
  }

  /**
   * Ready: the api answers /readyz 200. A worker answers /readyz 200 on HEALTH_PORT; a build whose
   * workers do not serve it yet (connection refused) counts as ready once this start logged
   * `"msg":"started"`.
   */
  private async waitReady(start: number): Promise<void> {
    const marker = `===== start #${start} of ${this.name}`;
    await waitFor(
      `${this.name} to be ready (log: ${this.logFile})`,
      START_TIMEOUT_MS,
      async () => {
        if (!this.alive) throw new Error(`${this.name} exited during start with ${String(await this.exited)}; see ${this.logFile}`);
        const status = await fetch(`${this.baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
          (r) => r.status,
          (error: { cause?: { code?: string } }) => (error.cause?.code === 'ECONNREFUSED' ? 'refused' : 'error'),
        );
        if (status === 200) return true;
        if (this.role === 'api' || status !== 'refused') return false;
        const log = fs.readFileSync(this.logFile, 'utf8');
        return log.slice(log.lastIndexOf(marker)).includes('"msg":"started"');
      },
      250,
    );
  }

  /**
   * When this start of the process logged `"msg":"<msg>"` (its own clock, the same machine's), waiting
   * up to `timeoutMs` for the line. It says when the process acted on something, e.g. a signal, which a
   * busy event loop may do well after the signal was sent.
   */
  async waitForLog(msg: string, timeoutMs: number): Promise<number> {
    const marker = `===== start #${this.starts} of ${this.name}`;
    return waitFor(
      `${this.name} to log "${msg}"`,
      timeoutMs,
      () => {
        const log = fs.readFileSync(this.logFile, 'utf8');
        const line = log
          .slice(log.lastIndexOf(marker))
          .split('\n')
          .find((l) => l.includes(`"msg":${JSON.stringify(msg)}`));
        return line ? Date.parse((JSON.parse(line) as { time: string }).time) : undefined;
      },
      10,
    );
  }

  /** Sends `signal`; returns when the process is gone, with its exit code (-1: killed by a signal). */
  async stop(signal: NodeJS.Signals, timeoutMs = 30_000): Promise<number | null> {
    if (!this.child || !this.alive) return this.exited;
    this.child.kill(signal);
    return within(`${this.name} to exit after ${signal}`, timeoutMs, this.exited);
  }

  /** kill -9; returns the moment it died. */
  async kill9(): Promise<number> {
    await this.stop('SIGKILL', 10_000);
    return Date.now();
  }

  /** The promise of the current process's exit code. */
  exitCode(): Promise<number | null> {
    return this.exited;
  }

  /** Best effort for after hooks: SIGTERM, then SIGKILL if it lingers. */
  async shutdown(): Promise<void> {
    if (!this.alive) return;
    await this.stop('SIGTERM', 15_000).catch(async () => {
      this.child?.kill('SIGKILL');
      await sleep(200);
    });
  }
}
