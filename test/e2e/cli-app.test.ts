/**
 * `svc app dev` and `svc app deploy`, run as the built binary against a test server: a partner signs
 * in with --token, `svc app dev` creates the app from app.json and a sandbox, installs the app there
 * and forwards the sandbox's webhooks to an HTTP server of this test; a product created with the
 * sandbox token arrives there with a signature that verifies with the secret the tool printed, and
 * Ctrl-C ends the tool with exit code 0. Then releases: 1.0.0 is accepted, 0.9.0 refused (exit 1).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { limitKey } from '../../api/auth/accounts';
import { verifyWebhookSignature } from '../../api/webhooks/verify';
import { uuidv7 } from '../../storage/ids';
import { call, startTestServer, type TestServer } from '../helpers/harness';
import { GOOD_PASSWORD, uniqueEmail } from '../helpers/accounts';
import { eventually } from '../helpers/wait';
import { fanOutWebhooks } from '../helpers/webhook-fan-out';

const SVC = path.join(__dirname, '..', '..', 'cli', 'svc.js');

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv, cwd: string): Running {
  const child = spawn(process.execPath, [SVC, ...args], { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function run(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = start(args, env, cwd);
  const code = await r.exited;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

interface Received {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

describe('svc app dev and svc app deploy', function () {
  this.timeout(180_000);
  let server: TestServer;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Received[] = [];
  let dir: string;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const tenants: string[] = [];
  const slug = `notes-${uuidv7().slice(-12)}`;

  before(async () => {
    server = await startTestServer();
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-app-config-'));
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-app-work-'));
    env = { SVC_CONFIG_DIR: dir };
    fs.writeFileSync(
      path.join(work, 'app.json'),
      JSON.stringify({
        slug,
        name: 'Order Notes',
        summary: 'Notes on every order.',
        category: 'partner-test',
        scopes: ['orders:read'],
        webhookTopics: ['product.created'],
      }),
    );
  });

  after(async () => {
    if (server) {
      await server.runtime.dataSource.query(
        "UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = ANY($1::uuid[]) AND status <> 'done'",
        [tenants],
      );
      await server.runtime.dataSource.query('DELETE FROM tenants WHERE id = ANY($1::uuid[])', [tenants]);
      await server.close();
    }
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    for (const folder of [dir, work]) if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  const fanOut = (tenantId: string): Promise<number> => fanOutWebhooks(server, tenantId);

  it('signs in as a partner, runs the dev loop with signed forwarding, stops on Ctrl-C, and releases versions', async () => {
    const limiter = server.runtime.services.rateLimiter;
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '::1']) {
      await limiter.reset(limitKey('registerPerIp', ip));
      await limiter.reset(`sandbox:create:ip:${ip}`);
    }
    const registered = await call(server, 'POST', '/api/v1/auth/partner-register', {
      body: { email: uniqueEmail('partner'), password: GOOD_PASSWORD, name: 'Pat', companyName: 'Notes Apps' },
    });
    expect(registered.status, registered.text).to.equal(201);
    tenants.push(registered.json.tenant.id);
    const login = await run(['login', '--url', server.baseUrl, '--token', registered.json.accessToken], env, work);
    expect(login.code, login.stderr).to.equal(0);

    // Usage errors come first, with exit code 2.
    expect((await run(['app', 'dev', '--forward-to', 'not a url'], env, work)).code).to.equal(2);
    expect((await run(['app', 'dev', '--app', 'Bad Slug'], env, work)).code).to.equal(2);

    const dev = start(['app', 'dev', '--forward-to', receiverUrl, '--email', uniqueEmail('appdev')], env, work);
    const secret = await eventually(() => /Signing secret: (whsec_\S+)/.exec(dev.stdout())?.[1], 'the secret to be printed', {
      timeoutMs: 60_000,
      intervalMs: 50,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${dev.stdout()}\n${dev.stderr()}`);
    });
    const storeId = /Store: ([0-9a-f-]{36})/.exec(dev.stdout())![1]!;
    await eventually(() => dev.stdout().includes(`Forwarding to ${receiverUrl}`), 'forwarding to start', {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    const profile = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).envs.default;
    expect(profile.sandbox.storeId).to.equal(storeId);
    const [sandboxRow] = await server.runtime.dataSource.query('SELECT tenant_id FROM sandboxes WHERE store_id = $1', [storeId]);
    tenants.push(sandboxRow.tenant_id);

    // A real event on the sandbox store: a product created with the sandbox token, fanned out as the relay would.
    const product = await call(server, 'POST', '/api/v1/catalog/products', {
      headers: { Authorization: `Bearer ${profile.sandbox.token}` },
      body: { storeId, title: 'Forwarded hat', type: 'PHYSICAL', price: 12 },
    });
    expect(product.status, product.text).to.equal(201);
    expect(await fanOut(sandboxRow.tenant_id)).to.be.at.least(1);

    const delivery = await eventually(
      () => received.find((r) => r.headers['x-service-topic'] === 'product.created'),
      'the delivery to reach the local handler',
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(delivery.headers['content-type']).to.equal('application/json');
    expect(verifyWebhookSignature({ rawBody: delivery.body, header: delivery.headers['x-service-signature'], secret })).to.include({
      ok: true,
    });
    const envelope = JSON.parse(delivery.body.toString('utf8'));
    expect(envelope).to.include({ topic: 'product.created', tenantId: sandboxRow.tenant_id });
    expect(envelope.data).to.be.an('object');
    expect(delivery.headers['x-service-delivery-id']).to.equal(envelope.deliveryId);
    // The bytes are the stored envelope's, unchanged.
    const [stored] = await server.runtime.dataSource.query('SELECT body FROM webhook_deliveries WHERE id = $1', [envelope.deliveryId]);
    expect(delivery.body.toString('utf8')).to.equal(stored.body);
    await eventually(() => dev.stdout().includes(`${envelope.deliveryId}  → 200`), 'the delivery line', {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    await eventually(
      async () =>
        (await server.runtime.dataSource.query('SELECT status FROM webhook_deliveries WHERE id = $1', [envelope.deliveryId]))[0].status ===
        'DELIVERED',
      'the outcome to be recorded',
      { timeoutMs: 10_000, intervalMs: 50 },
    );

    dev.child.kill('SIGINT');
    expect(await dev.exited, dev.stderr()).to.equal(0);

    const released = await run(['app', 'deploy', '--version', '1.0.0'], env, work);
    expect(released.code, released.stderr).to.equal(0);
    expect(released.stdout).to.include(`Released ${slug} 1.0.0.`);
    const older = await run(['app', 'deploy', '--version', '0.9.0'], env, work);
    expect(older.code).to.equal(1);
    expect(older.stderr).to.match(/not newer than the latest release, 1\.0\.0.*app_version_not_newer/);
    const invalid = await run(['app', 'deploy', '--version', '1.0', '--app', slug], env, os.tmpdir());
    expect(invalid.code).to.equal(1);
    expect(invalid.stderr).to.include('validation_failed');
    const read = await call(server, 'GET', `/api/v1/app-store/partner/apps/${slug}`, {
      headers: { Authorization: `Bearer ${registered.json.accessToken}` },
    });
    expect(read.json).to.include({ currentVersion: '1.0.0', published: true });
  });
});
