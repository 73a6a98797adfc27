/**
 * Watches PostgreSQL, Redis and Meilisearch for one process: probes each on an interval (and when
 * readiness is asked), remembers whether it is up and since when, and
 * - logs one line when a dependency goes down and one when it is back (with how long it was gone),
 *   plus one summary line per window while something stays down, instead of a line per failure;
 * - tells listeners about every change, so the outbox relay can retry what waited on a dependency
 *   the moment it is back (see OutboxRelay.retryNow), however long it was gone.
 */
import type { Logger } from 'pino';
import { DEPENDENCIES, type DependencyName, type DependencyProbes } from './dependency-probes';

export interface DependencyState {
  up: boolean;
  /** When the dependency last changed between up and down (or was first probed). */
  since: Date;
  /** Why the last probe failed. */
  error?: string;
  durationMs: number;
}

export type DependencyChange = (name: DependencyName, now: DependencyState, before: DependencyState | undefined) => void;

export interface MonitorOptions {
  intervalMs: number;
  /** Each probe's deadline; all run in parallel. */
  deadlineMs?: number;
  /** While something is down, one summary line per this many ms. */
  summaryMs?: number;
}

export const PROBE_DEADLINE_MS = 700;

export class DependencyMonitor {
  private readonly states = new Map<DependencyName, DependencyState>();
  private readonly listeners: DependencyChange[] = [];
  private running: Promise<Map<DependencyName, DependencyState>> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSummary = 0;

  constructor(
    readonly probes: DependencyProbes,
    private readonly logger: Logger,
    private readonly options: MonitorOptions,
  ) {}

  /** Probes on the interval until stop(). */
  start(): void {
    if (this.timer) return;
    const tick = (): void => {
      void this.checkNow().finally(() => {
        // Four times as often while something is down: what waited on it resumes sooner.
        const down = [...this.states.values()].some((s) => !s.up);
        if (this.timer) this.timer = setTimeout(tick, down ? Math.max(100, this.options.intervalMs / 4) : this.options.intervalMs).unref();
      });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  onChange(listener: DependencyChange): void {
    this.listeners.push(listener);
  }

  state(name: DependencyName): DependencyState | undefined {
    return this.states.get(name);
  }

  /** Probes every dependency now (calls made meanwhile share this round) and returns the states. */
  checkNow(): Promise<Map<DependencyName, DependencyState>> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  private async round(): Promise<Map<DependencyName, DependencyState>> {
    const deadline = this.options.deadlineMs ?? PROBE_DEADLINE_MS;
    await Promise.all(
      DEPENDENCIES.map(async (name) => {
        const started = Date.now();
        let error: string | undefined;
        try {
          await this.probes.probe(name, deadline);
        } catch (e) {
          error = (e as Error)?.message ?? String(e);
        }
        this.record(name, error, Date.now() - started);
      }),
    );
    this.summarise();
    return new Map(this.states);
  }

  private record(name: DependencyName, error: string | undefined, durationMs: number): void {
    const before = this.states.get(name);
    const up = error === undefined;
    const changed = !before || before.up !== up;
    const now: DependencyState = { up, since: changed ? new Date() : before.since, error, durationMs };
    this.states.set(name, now);
    if (!changed) return;
    if (!up) this.logger.warn({ dependency: name, error }, before ? `${name} is down` : `${name} is not reachable`);
    else if (before)
      this.logger.info(
        { dependency: name, downSeconds: Math.round((now.since.getTime() - before.since.getTime()) / 100) / 10 },
        `${name} is back`,
      );
    for (const listener of this.listeners) {
      try {
        listener(name, now, before);
      } catch (listenerError) {
        this.logger.error({ err: listenerError, dependency: name }, 'a dependency listener failed');
      }
    }
  }

  private summarise(): void {
    const down = [...this.states].filter(([, s]) => !s.up);
    if (!down.length) {
      this.lastSummary = 0;
      return;
    }
    // The start of an outage is logged by record(); the summaries follow one window apart.
    if (this.lastSummary === 0) this.lastSummary = Date.now();
    if (Date.now() - this.lastSummary < (this.options.summaryMs ?? 30_000)) return;
    this.lastSummary = Date.now();
    this.logger.warn(
      {
        down: Object.fromEntries(
          down.map(([name, s]) => [name, { seconds: Math.round((Date.now() - s.since.getTime()) / 1000), error: s.error }]),
        ),
      },
      'still down',
    );
  }

  async stop(): Promise<void> {
    const timer = this.timer;
    this.timer = undefined;
    if (timer) clearTimeout(timer);
    await this.running?.catch(() => undefined);
    await this.probes.close();
  }
}
