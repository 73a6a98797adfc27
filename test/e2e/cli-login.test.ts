/**
 * `svc login` with the device flow, run as the built binary: it prints the verification URL and the
 * user code, polls at the server's interval, and completes when the test approves the code through
 * the API as a signed-in user (or fails when it is denied). The tokens land in the profile (0600)
 * and an expired access token is refreshed on the next command. `--token` signs in for CI.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { call, startTestServer, testRuntime, type TestServer } from '../helpers/harness';
import { merchant, type Merchant } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';

const SVC = path.join(__dirname, '..', '..', 'cli', 'svc.js');

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [SVC, ...args], {
    cwd: os.tmpdir(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = start(args, env);
  const code = await r.exited;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

describe('svc login and environments', function () {
  this.timeout(120_000);
  let server: TestServer;
  let m: Merchant;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const config = () => JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));

  before(async () => {
    const runtime = await testRuntime();
    // A one-second polling interval keeps the test short; the tool must still wait for it.
    server = await startTestServer({ config: { auth: { ...runtime.config.auth, deviceCodeIntervalSeconds: 1 } } });
    m = await merchant(server);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-login-'));
    env = { SVC_CONFIG_DIR: dir };
  });

  after(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('completes the device flow when the code is approved through the API', async () => {
    const login = start(['login', '--url', server.baseUrl, '--no-browser', '--env', 'dev'], env);
    const code = await eventually(() => /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(login.stdout())?.[1], 'the user code to be printed', {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    expect(login.stdout()).to.include(`${server.runtime.config.publicBaseUrl.replace(/\/+$/, '')}/device`);
    // Not approved yet: the tool keeps polling.
    expect(login.child.exitCode).to.equal(null);
    const approved = await call(server, 'POST', '/api/v1/auth/cli/approve', { headers: m.headers, body: { userCode: code } });
    expect(approved.status, approved.text).to.equal(200);
    expect(await login.exited, login.stderr()).to.equal(0);
    expect(login.stdout()).to.include(`Signed in to ${server.baseUrl} as ${m.owner.email}`);

    expect(fs.statSync(path.join(dir, 'config.json')).mode & 0o777).to.equal(0o600);
    expect(fs.statSync(dir).mode & 0o777).to.equal(0o700);
    const profile = config().envs.dev;
    expect(profile).to.include({ url: server.baseUrl, email: m.owner.email });
    expect(profile.accessToken).to.be.a('string');
    expect(profile.refreshToken).to.be.a('string');
    expect(config().current).to.equal('dev');

    const whoami = await run(['whoami'], env);
    expect(whoami.code, whoami.stderr).to.equal(0);
    expect(whoami.stdout).to.include(m.owner.email);
  });

  it('refreshes an expired access token and saves the new pair', async () => {
    const saved = config();
    const before = saved.envs.dev;
    saved.envs.dev.accessExpiresAt = new Date(Date.now() - 1000).toISOString();
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(saved));
    const whoami = await run(['whoami', '--env', 'dev'], env);
    expect(whoami.code, whoami.stderr).to.equal(0);
    const after = config().envs.dev;
    expect(after.refreshToken).not.to.equal(before.refreshToken);
    expect(Date.parse(after.accessExpiresAt)).to.be.greaterThan(Date.now());
    // The old refresh token was used up: it no longer works.
    const reuse = await call(server, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: before.refreshToken } });
    expect(reuse.status).to.equal(401);
  });

  it('fails with exit code 1 when the code is denied', async () => {
    const login = start(['login', '--url', server.baseUrl, '--no-browser', '--env', 'denied'], env);
    const code = await eventually(() => /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(login.stdout())?.[1], 'the user code', {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    const denied = await call(server, 'POST', '/api/v1/auth/cli/deny', { headers: m.headers, body: { userCode: code } });
    expect(denied.status).to.equal(200);
    expect(await login.exited).to.equal(1);
    expect(login.stderr()).to.match(/denied/);
    expect(config().envs.denied?.accessToken).to.equal(undefined);
  });

  it('signs in with --token for CI, and a refused token fails', async () => {
    const ok = await run(['login', '--url', server.baseUrl, '--token', m.owner.accessToken, '--env', 'ci'], env);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(config().current).to.equal('ci');
    expect((await run(['whoami'], env)).stdout).to.include(m.owner.email);
    const bad = await run(['login', '--url', server.baseUrl, '--token', 'eyJhbGciOiJIUzI1NiJ9.e30.bm90LWEtdG9rZW4', '--env', 'bad'], env);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/refused|Not signed in/);
    expect(config().envs.bad).to.equal(undefined);
    expect(config().current).to.equal('ci');
  });

  it('env add, list, use and --env choose the instance each command talks to', async () => {
    expect((await run(['env', 'add', 'Bad Name', '--url', server.baseUrl], env)).code).to.equal(2);
    expect((await run(['env', 'add', 'x', '--url', 'ftp://example.com'], env)).code).to.equal(2);
    expect((await run(['env', 'add', 'x'], env)).code).to.equal(2);
    expect((await run(['env', 'use', 'missing'], env)).code).to.equal(1);

    const other = await run(['env', 'add', 'other', '--url', 'http://127.0.0.1:9', '--token', m.owner.accessToken], env);
    expect(other.code).to.equal(0);
    expect((await run(['whoami', '--env', 'other'], env)).stderr).to.match(/Cannot reach http:\/\/127\.0\.0\.1:9/);
    expect((await run(['whoami', '--env', 'ci'], env)).stdout).to.include(m.owner.email);
    expect((await run(['env', 'use', 'other'], env)).code).to.equal(0);
    expect((await run(['whoami'], env)).code).to.equal(1);
    expect((await run(['whoami'], { ...env, SVC_ENV: 'ci' })).code).to.equal(0);
    const list = await run(['env', 'list'], env);
    expect(list.stdout).to.match(/^\* other\s+http:\/\/127\.0\.0\.1:9/m);
    expect(list.stdout).to.match(/^ {2}dev\s+http:\/\/127\.0\.0\.1:\d+\s+signed in as /m);
  });
});
