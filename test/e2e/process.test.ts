/**
 * The real entry point as an operator runs it: all roles in one process come up ready, and SIGTERM
 * stops it cleanly (stops accepting, finishes, closes pools, exits 0).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../lib/config';
import { freePort } from '../helpers/ports';
import { eventually } from '../helpers/wait';

/** dist/app/main.js started as an operator would, with `env` over the test environment; its stdout and stderr collected. */
function startMain(env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'app', 'main.js')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe('process entry point', () => {
  it('starts api, relay, indexer, vision and jobs together and shuts down on SIGTERM with exit code 0', async () => {
    const port = await freePort();
    const { child, output, exited } = startMain({ PORT: String(port), HOST: '127.0.0.1', QUEUE_PREFIX: `e2e-${port}` });
    try {
      const base = `http://127.0.0.1:${port}`;
      await eventually(
        async () => {
          if (child.exitCode !== null) throw new Error(`process exited early with ${child.exitCode}`);
          // Refused while the process is not listening yet.
          return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200;
        },
        'the process to be ready',
        { timeoutMs: 20_000, intervalMs: 100 },
      );
      expect(output()).to.match(/"roles":\["api","relay","indexer","vision","jobs"\]/);
      // The api role serves the route table: an operation that needs a token answers 401 without one.
      const guarded = await fetch(`${base}/api/v1/client-errors/stats`);
      expect(guarded.status).to.equal(401);
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(output()).to.match(/"msg":"shutting down"/);
      expect(output()).to.match(/"msg":"stopped"/);
      let refused = false;
      await fetch(`${base}/healthz`).catch(() => (refused = true));
      expect(refused, 'no longer accepting connections').to.equal(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('writes readable lines with LOG_FORMAT=pretty (JSON lines otherwise, as above) and no stack at a normal start', async () => {
    const port = await freePort();
    const { child, output, exited } = startMain({ PORT: String(port), HOST: '127.0.0.1', ROLES: 'api', LOG_FORMAT: 'pretty' });
    try {
      await eventually(() => output().includes('api listening'), 'the api to listen', { timeoutMs: 20_000, intervalMs: 100 });
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      const lines = output().split('\n').filter(Boolean);
      expect(lines.length).to.be.greaterThan(2);
      for (const line of lines) expect(line.trimStart().startsWith('{'), line).to.equal(false);
      expect(output()).to.match(/INFO.*api listening/);
      expect(output()).not.to.match(/WARN|ERROR|stack/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('runs a single role alone (ROLES=indexer) without serving HTTP', async () => {
    const port = await freePort();
    const { child, output, exited } = startMain({ PORT: String(port), ROLES: 'indexer', QUEUE_PREFIX: `e2e-${port}` });
    try {
      await eventually(() => output().includes('"msg":"started"'), 'the indexer role to start', { timeoutMs: 20_000, intervalMs: 100 });
      expect(output()).to.match(/"roles":\["indexer"\]/);
      let refused = false;
      await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => (refused = true));
      expect(refused).to.equal(true);
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
