/**
 * The health endpoints of a worker-only process (HEALTH_PORT): live always; ready while its queues'
 * Redis (and PostgreSQL) answer, and 503 naming what is missing otherwise.
 */
import { expect } from 'chai';
import { startHealthServer } from '../../app/health-server';
import { createMonitor } from '../../app/runtime';
import type { RunningRole } from '../../app/lifecycle';
import { testRuntime } from '../helpers/harness';
import { freePort } from '../helpers/ports';

describe('worker health endpoints (HEALTH_PORT)', () => {
  const started: RunningRole[] = [];
  after(async () => {
    for (const role of started) await role.stop();
  });

  async function serve(redisUrl?: string): Promise<string> {
    const runtime = await testRuntime();
    const config = { ...runtime.config, host: '127.0.0.1', ...(redisUrl ? { redisUrl } : {}) };
    const monitor = redisUrl ? createMonitor(config, runtime.logger) : runtime.monitor;
    const port = await freePort();
    started.push(await startHealthServer({ ...runtime, config, monitor }, ['jobs', 'vision'], port));
    if (monitor !== runtime.monitor) started.push({ name: 'monitor', stop: () => monitor.stop() });
    return `http://127.0.0.1:${port}`;
  }

  it('answers live and ready for the jobs and vision roles when PostgreSQL and Redis answer', async () => {
    const base = await serve();
    const live = await fetch(`${base}/livez`);
    expect(live.status).to.equal(200);
    const ready = await fetch(`${base}/readyz`);
    const body = (await ready.json()) as { status: string; roles: Record<string, unknown> };
    expect(ready.status, JSON.stringify(body)).to.equal(200);
    expect(body.roles).to.deep.equal({ jobs: { ready: true, missing: [] }, vision: { ready: true, missing: [] } });
  });

  it('is not ready while its queue cannot be reached, and stays live', async () => {
    const base = await serve('redis://127.0.0.1:1');
    const ready = await fetch(`${base}/readyz`);
    const body = (await ready.json()) as { code: string; detail: string; roles: Record<string, { ready: boolean; missing: string[] }> };
    expect(ready.status).to.equal(503);
    expect(ready.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(body.code).to.equal('not_ready');
    expect(body.detail).to.equal('Not ready: redis unavailable.');
    expect(body.roles.jobs).to.deep.equal({ ready: false, missing: ['redis'] });
    expect((await fetch(`${base}/livez`)).status).to.equal(200);
  });
});
