/**
 * Webhooks: subscription management (bounds, roles, tenancy, secret shown once, rotation), product
 * events emitted by the product operations, and delivery against a real HTTP receiver in this process:
 * headers and signature byte for byte with the shipped verifier, the retry table (time-scaled), the
 * dead-letter queue and replay with the same deliveryId, restarts of the dispatcher, and the tester
 * for all 33 topics.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createApp } from '../../app/http-app';
import type { WebhookConfig } from '../../lib/config';
import { jobsConsumers } from '../../app/roles/jobs';
import { WEBHOOK_TOPICS } from '../../api/webhooks/events';
import { MAX_ATTEMPTS, WebhookDispatcher } from '../../api/webhooks/dispatcher';
import { verifyWebhookSignature } from '../../api/webhooks/verify';
import { startConsumers } from '../../storage/consumers';
import { uuidv7 } from '../../storage/ids';
import { jobIdFor } from '../../storage/outbox';
import { QueueRegistry } from '../../storage/queues';
import { addMember, auditRows, expectProblem } from '../helpers/accounts';
import { call, testRuntime, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { RETRY, silentLogger } from '../helpers/indexing';
import { apiKey, createProduct, merchant, type Merchant } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';
import { fanOutWebhooks } from '../helpers/webhook-fan-out';

type Json = Record<string, any>;

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A receiver on 127.0.0.1: each path answers the statuses queued for it in turn, then 200. */
class Receiver {
  readonly requests: Received[] = [];
  private readonly scripts = new Map<string, number[]>();
  private readonly hanging = new Set<string>();
  private server!: http.Server;
  base = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.requests.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        if (this.hanging.has(path)) return; // never answers
        const status = this.scripts.get(path)?.shift() ?? 200;
        if (status >= 300 && status < 400) res.setHeader('Location', `${this.base}/elsewhere`);
        res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A fresh path answering `statuses` first. */
  path(statuses: number[] = [], options: { hang?: boolean } = {}): string {
    const path = `/hook/${uuidv7()}`;
    this.scripts.set(path, [...statuses]);
    if (options.hang) this.hanging.add(path);
    return path;
  }

  at(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const DELAYS = [300, 600, 900, 1200];
const WEBHOOKS: WebhookConfig = {
  retryDelaysMs: DELAYS,
  timeoutMs: 2_000,
  pollIntervalMs: 20,
  claimTimeoutMs: 3_000,
  concurrency: 16,
  allowAddresses: ['127.0.0.1'],
};

describe('webhooks', function () {
  this.timeout(60_000);
  let server: TestServer;
  const receiver = new Receiver();
  const tenants: string[] = [];
  const dispatchers: WebhookDispatcher[] = [];

  /** The app with webhook settings of its own (process services, which startTestServer's config does not reach): the local receiver's address is allowed (tests only). */
  async function startWebhookServer(): Promise<TestServer> {
    const runtime = await testRuntime();
    const services = { ...runtime.services, config: { ...runtime.services.config, webhooks: WEBHOOKS } };
    const app = createApp({ ...runtime, services });
    const httpServer = http.createServer(app.callback());
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve()));
    return {
      baseUrl: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
      runtime: { ...runtime, services },
      close: () => new Promise<void>((resolve) => httpServer.close(() => resolve())),
    };
  }

  const suite = apiSuite((started) => (server = started), { start: startWebhookServer });
  before(() => receiver.start());

  afterEach(async () => {
    for (const d of dispatchers.splice(0)) await d.stop();
    // Nothing of these tenants is left for a later dispatcher (another test's) to send.
    await q("UPDATE webhook_deliveries SET status = 'DEAD', dead_at = now() WHERE tenant_id = ANY($1::uuid[]) AND status = 'PENDING'", [
      tenants,
    ]);
    await q("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = ANY($1::uuid[]) AND status <> 'done'", [tenants]);
  });

  after(() => receiver.close());

  const q = <T = Json>(sql: string, params: unknown[] = []): Promise<T[]> => server.runtime.dataSource.query(sql, params);

  async function newMerchant(): Promise<Merchant> {
    const m = suite.addMerchant(await merchant(server));
    tenants.push(m.owner.tenantId);
    return m;
  }

  function dispatcher(over: Partial<WebhookConfig> = {}): WebhookDispatcher {
    const d = new WebhookDispatcher(
      server.runtime.dataSource,
      { ...WEBHOOKS, ...over, appSecret: server.runtime.config.appSecret },
      silentLogger,
    );
    dispatchers.push(d);
    return d;
  }

  const api = (m: Merchant, method: string, path: string, body?: unknown, headers = m.headers) =>
    call(server, method, `/api/v1${path}`, { headers, body });

  async function endpoint(m: Merchant, body: Json): Promise<Json> {
    const res = await api(m, 'POST', '/webhooks/endpoints', body);
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const fanOut = (tenantId: string): Promise<number> => fanOutWebhooks(server, tenantId);

  const deliveryRow = async (id: string): Promise<Json> => (await q('SELECT * FROM webhook_deliveries WHERE id = $1', [id]))[0]!;
  const waitStatus = (id: string, status: string, timeoutMs = 15_000) =>
    eventually(async () => (await deliveryRow(id)).status === status, `delivery ${id} ${status}`, timeoutMs);

  /** Checks one received request against the specified headers and envelope byte for byte; returns the parsed envelope. */
  function verifyRequest(r: Received, secret: string, topic: string): Json {
    expect(r.headers['content-type']).to.equal('application/json');
    expect(r.headers['x-service-topic']).to.equal(topic);
    expect(r.headers['x-service-signature']).to.match(/^t=\d+,v1=[0-9a-f]{64}$/);
    const verdict = verifyWebhookSignature({ rawBody: r.body, header: r.headers['x-service-signature'], secret });
    expect(verdict, r.headers['x-service-signature'] as string).to.include({ ok: true });
    const envelope = JSON.parse(r.body) as Json;
    expect(Object.keys(envelope)).to.deep.equal(['topic', 'deliveryId', 'tenantId', 'occurredAt', 'data']);
    expect(envelope.topic).to.equal(topic);
    expect(r.headers['x-service-delivery-id']).to.equal(envelope.deliveryId);
    expect(envelope.occurredAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    return envelope;
  }

  describe('endpoints', () => {
    it('creates an endpoint showing its secret once; lists, reads, updates and deletes it, each change audited once', async () => {
      const m = await newMerchant();
      const created = await endpoint(m, {
        url: 'https://hooks.example.com/commerce',
        topics: ['order.placed', 'product.created'],
        description: 'ERP sync',
      });
      expect(created.secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(created).to.deep.include({
        url: 'https://hooks.example.com/commerce',
        topics: ['order.placed', 'product.created'],
        description: 'ERP sync',
        enabled: true,
        secretLast4: created.secret.slice(-4),
        secretRotatedAt: null,
      });
      const stored = (await q('SELECT secret_enc FROM webhook_endpoints WHERE id = $1', [created.id]))[0]!;
      expect(stored.secret_enc).to.not.contain(created.secret.slice(6));

      const got = await api(m, 'GET', `/webhooks/endpoints/${created.id}`);
      expect(got.status).to.equal(200);
      expect(got.json).to.not.have.property('secret');
      const { secret: _secret, ...view } = created;
      expect(got.json).to.deep.equal(view);

      const second = await endpoint(m, { url: 'http://hooks.example.com/all', topics: ['*'], enabled: false });
      expect(second).to.include({ enabled: false, description: null });
      expect(second.topics).to.deep.equal(['*']);
      const list = await api(m, 'GET', '/webhooks/endpoints?limit=1');
      expect(list.status).to.equal(200);
      expect(list.json.items.map((e: Json) => e.id)).to.deep.equal([created.id]);
      const rest = await api(m, 'GET', `/webhooks/endpoints?cursor=${list.json.nextCursor}`);
      const { secret: _secret2, ...secondView } = second;
      expect(rest.json).to.deep.equal({ items: [secondView], nextCursor: null });

      const patched = await api(m, 'PATCH', `/webhooks/endpoints/${created.id}`, {
        topics: ['payment.captured'],
        enabled: false,
        description: null,
      });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.json).to.include({ enabled: false, description: null, secretLast4: created.secretLast4 });
      expect(patched.json.topics).to.deep.equal(['payment.captured']);
      const same = await api(m, 'PATCH', `/webhooks/endpoints/${created.id}`, { enabled: false, description: '  ' });
      expect(same.status).to.equal(200);
      expect(same.json.description).to.equal(null);

      expect((await api(m, 'DELETE', `/webhooks/endpoints/${second.id}`)).status).to.equal(204);
      expectProblem(await api(m, 'GET', `/webhooks/endpoints/${second.id}`), 404, 'webhook_endpoint_not_found');
      const actions = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_type === 'webhook_endpoint');
      expect(actions.map((a) => a.action)).to.deep.equal([
        'webhook_endpoint.create',
        'webhook_endpoint.create',
        'webhook_endpoint.update',
        'webhook_endpoint.delete',
      ]);
      for (const a of actions) expect(JSON.stringify(a)).to.not.contain(created.secret);
    });

    it('validates url, topics, description and enabled, refuses unknown fields, duplicates and the 21st endpoint', async () => {
      const m = await newMerchant();
      const bad = async (body: Json, path: string): Promise<void> => {
        const res = await api(m, 'POST', '/webhooks/endpoints', body);
        expect(res.status, res.text).to.equal(400);
        expect(res.json.errors.map((e: Json) => e.path).join(' '), res.text).to.contain(path);
      };
      const ok = { url: 'https://example.com/hook', topics: ['order.placed'] };
      await bad({ topics: ['order.placed'] }, 'url');
      await bad({ ...ok, url: 'ftp://example.com/hook' }, 'url');
      await bad({ ...ok, url: 'not a url' }, 'url');
      await bad({ ...ok, url: `https://example.com/${'a'.repeat(2030)}` }, 'url');
      await bad({ ...ok, url: 'https://user:pw@example.com/hook' }, 'url');
      await bad({ ...ok, url: 'http://10.0.0.7/hook' }, 'url');
      await bad({ ...ok, url: 'http://169.254.169.254/latest' }, 'url');
      await bad({ url: ok.url }, 'topics');
      await bad({ ...ok, topics: [] }, 'topics');
      await bad({ ...ok, topics: ['order.shipped'] }, 'topics');
      await bad({ ...ok, topics: ['order.placed', 'order.placed'] }, 'topics');
      await bad({ ...ok, topics: ['*', 'order.placed'] }, 'topics');
      await bad({ ...ok, description: 'x'.repeat(501) }, 'description');
      await bad({ ...ok, enabled: 'sometimes' }, 'enabled');
      await bad({ ...ok, secret: 'mine' }, 'secret');
      const all = await endpoint(m, { ...ok, topics: [...WEBHOOK_TOPICS], description: 'x'.repeat(500) });
      expect(all.topics).to.have.length(33);
      expectProblem(
        await api(m, 'POST', '/webhooks/endpoints', { ...ok, url: 'https://example.com/hook' }),
        409,
        'webhook_endpoint_url_taken',
      );
      expectProblem(await api(m, 'POST', '/webhooks/endpoints', ok), 409, 'webhook_endpoint_url_taken');
      expect((await api(m, 'PATCH', `/webhooks/endpoints/${all.id}`, {})).status).to.equal(400);
      expect((await api(m, 'PATCH', `/webhooks/endpoints/${all.id}`, { topics: ['nope'] })).status).to.equal(400);
      for (let i = 2; i <= 20; i += 1) await endpoint(m, { url: `https://example.com/hook/${i}`, topics: ['*'] });
      expectProblem(
        await api(m, 'POST', '/webhooks/endpoints', { url: 'https://example.com/hook/21', topics: ['*'] }),
        409,
        'webhook_endpoint_limit',
      );
      const page = await api(m, 'GET', '/webhooks/endpoints?limit=100');
      expect(page.json.items).to.have.length(20);
      expect((await api(m, 'GET', '/webhooks/endpoints?limit=0')).status).to.equal(400);
      expect((await api(m, 'GET', '/webhooks/endpoints?limit=101')).status).to.equal(400);
      expectProblem(await api(m, 'GET', '/webhooks/endpoints?cursor=nope'), 400, 'invalid_cursor');
    });

    it('is for owners, admins and API keys with the webhooks scopes; staff 403; another tenant gets 404 for everything of it', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const e = await endpoint(m, { url: 'https://example.com/a', topics: ['*'] });
      const admin = await addMember(server, m.owner, 'admin');
      const staff = await addMember(server, m.owner, 'staff');
      expect((await api(m, 'GET', `/webhooks/endpoints/${e.id}`, undefined, admin.headers)).status).to.equal(200);
      expect((await api(m, 'POST', '/webhooks/endpoints', { url: 'https://example.com/b', topics: ['*'] }, admin.headers)).status).to.equal(
        201,
      );
      expectProblem(await api(m, 'GET', '/webhooks/endpoints', undefined, staff.headers), 403, 'insufficient_role');
      expectProblem(
        await api(m, 'POST', '/webhooks/endpoints', { url: 'https://example.com/c', topics: ['*'] }, staff.headers),
        403,
        'insufficient_role',
      );
      // API keys of the tenant with the webhooks scopes (a sandbox token has '*').
      const reader = await apiKey(server, m, ['webhooks:read']);
      expect((await api(m, 'GET', '/webhooks/endpoints', undefined, reader)).json.items.map((x: Json) => x.id)).to.include(e.id);
      expectProblem(await api(m, 'POST', `/webhooks/endpoints/${e.id}/rotate-secret`, undefined, reader), 403, 'insufficient_scope');
      const writer = await apiKey(server, m, ['*']);
      const byKey = await api(m, 'POST', '/webhooks/endpoints', { url: 'https://example.com/by-key', topics: ['*'] }, writer);
      expect(byKey.status, byKey.text).to.equal(201);
      expect(byKey.json.secret).to.match(/^whsec_/);
      const catalogOnly = await apiKey(server, m, ['catalog:read']);
      expectProblem(await api(m, 'GET', '/webhooks/endpoints', undefined, catalogOnly), 403, 'insufficient_scope');
      const otherKey = await apiKey(server, other, ['*']);
      expectProblem(await api(m, 'GET', `/webhooks/endpoints/${e.id}`, undefined, otherKey), 404, 'webhook_endpoint_not_found');

      const path = `/webhooks/endpoints/${e.id}`;
      expectProblem(await api(other, 'GET', path), 404, 'webhook_endpoint_not_found');
      expectProblem(await api(other, 'PATCH', path, { enabled: false }), 404, 'webhook_endpoint_not_found');
      expectProblem(await api(other, 'DELETE', path), 404, 'webhook_endpoint_not_found');
      expectProblem(await api(other, 'POST', `${path}/rotate-secret`), 404, 'webhook_endpoint_not_found');
      expectProblem(await api(other, 'GET', `${path}/deliveries`), 404, 'webhook_endpoint_not_found');
      expectProblem(await api(other, 'GET', `/webhooks/dead-letters?endpointId=${e.id}`), 404, 'webhook_endpoint_not_found');
      expectProblem(await api(other, 'POST', '/webhooks/dead-letters/replay', { endpointId: e.id }), 404, 'webhook_endpoint_not_found');
      expect((await api(other, 'GET', '/webhooks/endpoints')).json.items).to.deep.equal([]);
      // The other tenant's test delivery is not visible either.
      const test = await api(m, 'POST', '/webhooks/test', { topic: 'order.placed', endpoint: `${receiver.base}${receiver.path()}` });
      expect(test.status, test.text).to.equal(202);
      expectProblem(await api(other, 'GET', `/webhooks/deliveries/${test.json.deliveryId}`), 404, 'webhook_delivery_not_found');
      expectProblem(await api(other, 'POST', `/webhooks/deliveries/${test.json.deliveryId}/replay`), 404, 'webhook_delivery_not_found');
      expect((await api(m, 'GET', `${path}`)).status).to.equal(200);
    });
  });

  describe('delivery', () => {
    /** A new merchant with one endpoint at the receiver's `path` for `topics`, and one product.created delivery fanned out to it, not yet attempted. */
    async function oneDelivery(path: string, topics = ['product.created']): Promise<{ m: Merchant; e: Json; row: Json }> {
      const m = await newMerchant();
      const e = await endpoint(m, { url: `${receiver.base}${path}`, topics });
      await createProduct(server, m);
      await fanOut(m.owner.tenantId);
      const [row] = await q('SELECT id FROM webhook_deliveries WHERE tenant_id = $1', [m.owner.tenantId]);
      return { m, e, row: row! };
    }

    it('product operations emit product.created/updated/published/archived; each arrives signed, with the specified headers and envelope, once per endpoint', async () => {
      const m = await newMerchant();
      const pathAll = receiver.path();
      const pathPublished = receiver.path();
      const all = await endpoint(m, {
        url: `${receiver.base}${pathAll}`,
        topics: ['product.created', 'product.updated', 'product.published', 'product.archived'],
      });
      const published = await endpoint(m, { url: `${receiver.base}${pathPublished}`, topics: ['product.published'] });
      await endpoint(m, { url: `${receiver.base}${receiver.path()}`, topics: ['*'], enabled: false });

      const p = await createProduct(server, m, { title: 'Linen Shirt', price: 39.9 });
      const put = await api(m, 'PUT', `/catalog/products/${p.id}`, { title: 'Linen Shirt Blue', type: 'PHYSICAL', price: 41.5 });
      expect(put.status, put.text).to.equal(200);
      expect((await api(m, 'POST', `/catalog/products/${p.id}/publish`)).status).to.equal(201);
      const bulk = await api(m, 'POST', '/catalog/products/bulk/archive', { storeId: m.storeId, productIds: [p.id] });
      expect(bulk.status, bulk.text).to.be.within(200, 202);

      const events = await q("SELECT topic, aggregate_type, payload FROM outbox WHERE tenant_id = $1 AND queue = 'webhooks' ORDER BY id", [
        m.owner.tenantId,
      ]);
      expect(events.map((e) => e.topic)).to.deep.equal(['product.created', 'product.updated', 'product.published', 'product.archived']);
      expect(events.every((e) => e.aggregate_type === 'webhook_event')).to.equal(true);
      expect(await fanOut(m.owner.tenantId)).to.equal(4);
      // The outbox may hand an event over again: no second delivery for the same (event, endpoint).
      await q("UPDATE outbox SET status = 'pending' WHERE tenant_id = $1 AND queue = 'webhooks'", [m.owner.tenantId]);
      expect(await fanOut(m.owner.tenantId)).to.equal(4);
      const rows = await q('SELECT id, endpoint_id, topic, status FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY id', [
        m.owner.tenantId,
      ]);
      expect(rows.map((r) => `${r.endpoint_id === all.id ? 'all' : 'published'}:${r.topic}`).sort()).to.deep.equal(
        [
          'all:product.created',
          'all:product.updated',
          'all:product.published',
          'all:product.archived',
          'published:product.published',
        ].sort(),
      );

      dispatcher().start();
      await eventually(async () => receiver.at(pathAll).length + receiver.at(pathPublished).length >= 5, 'five arrivals', 15_000);
      for (const r of rows) await waitStatus(r.id, 'DELIVERED');
      const got = receiver.at(pathAll).map((r) => verifyRequest(r, all.secret, r.headers['x-service-topic'] as string));
      expect(got.map((e) => e.topic).sort()).to.deep.equal(['product.archived', 'product.created', 'product.published', 'product.updated']);
      for (const e of got) expect(e.tenantId).to.equal(m.owner.tenantId);
      const byTopic = Object.fromEntries(got.map((e) => [e.topic, e.data]));
      expect(byTopic['product.created']).to.deep.include({
        id: p.id,
        storeId: m.storeId,
        title: 'Linen Shirt',
        status: 'DRAFT',
        price: 39.9,
        currency: 'EUR',
        slug: p.slug,
      });
      expect(byTopic['product.updated']).to.include({ title: 'Linen Shirt Blue', price: 41.5 });
      expect(byTopic['product.published']).to.include({ status: 'PUBLISHED' });
      expect(byTopic['product.archived']).to.include({ status: 'ARCHIVED' });
      expect(Object.keys(byTopic['product.created'])).to.have.members([
        'id',
        'storeId',
        'title',
        'slug',
        'status',
        'price',
        'currency',
        'updatedAt',
      ]);
      // Byte for byte: what arrived is the envelope stored at fan-out.
      for (const r of receiver.at(pathAll)) {
        const row = await deliveryRow(r.headers['x-service-delivery-id'] as string);
        expect(r.body).to.equal(row.body);
        expect(row).to.include({ status: 'DELIVERED', attempts: 1, last_status_code: 200 });
      }
      const onlyPublished = receiver.at(pathPublished);
      expect(onlyPublished).to.have.length(1);
      verifyRequest(onlyPublished[0]!, published.secret, 'product.published');
      // The other endpoint's secret does not verify it.
      expect(
        verifyWebhookSignature({
          rawBody: onlyPublished[0]!.body,
          header: onlyPublished[0]!.headers['x-service-signature'],
          secret: all.secret,
        }).ok,
      ).to.equal(false);

      const history = await api(m, 'GET', `/webhooks/endpoints/${all.id}/deliveries`);
      expect(history.status).to.equal(200);
      expect(history.json.items).to.have.length(4);
      expect(
        history.json.items.every((d: Json) => d.status === 'DELIVERED' && d.url === all.url && d.endpointId === all.id && d.test === false),
      ).to.equal(true);
      expect(history.json.items.map((d: Json) => d.id)).to.deep.equal([...history.json.items.map((d: Json) => d.id)].sort().reverse());
      const filtered = await api(m, 'GET', `/webhooks/endpoints/${all.id}/deliveries?status=DEAD`);
      expect(filtered.json.items).to.deep.equal([]);
      expect((await api(m, 'GET', `/webhooks/endpoints/${all.id}/deliveries?status=LOST`)).status).to.equal(400);
      const paged = await api(m, 'GET', `/webhooks/endpoints/${all.id}/deliveries?limit=3`);
      const next = await api(m, 'GET', `/webhooks/endpoints/${all.id}/deliveries?limit=3&cursor=${paged.json.nextCursor}`);
      expect([...paged.json.items, ...next.json.items].map((d: Json) => d.id)).to.deep.equal(history.json.items.map((d: Json) => d.id));
      expect(next.json.nextCursor).to.equal(null);
    });

    it('a tenant without subscribers records no product events, and an endpoint only gets events after it was created', async () => {
      const m = await newMerchant();
      await createProduct(server, m);
      expect(await q("SELECT 1 FROM outbox WHERE tenant_id = $1 AND queue = 'webhooks'", [m.owner.tenantId])).to.have.length(0);
      const first = await endpoint(m, { url: `${receiver.base}${receiver.path()}`, topics: ['product.created'] });
      await createProduct(server, m);
      // An endpoint created after the event happened gets no delivery of it.
      await q("UPDATE webhook_endpoints SET created_at = now() + interval '1 hour' WHERE id = $1", [first.id]);
      await fanOut(m.owner.tenantId);
      expect(await q('SELECT 1 FROM webhook_deliveries WHERE tenant_id = $1', [m.owner.tenantId])).to.have.length(0);
    });

    it('fails four times then succeeds: attempts at the time-scaled delays of the retry table, always the same deliveryId', async () => {
      const path = receiver.path([500, 502, 404, 302]);
      const { m, e, row } = await oneDelivery(path);
      dispatcher().start();
      await waitStatus(row!.id, 'DELIVERED');
      const arrivals = receiver.at(path);
      expect(arrivals).to.have.length(5);
      for (const r of arrivals) {
        expect(r.headers['x-service-delivery-id']).to.equal(row!.id);
        verifyRequest(r, e.secret, 'product.created');
        expect(r.body).to.equal(arrivals[0]!.body);
      }
      for (let k = 1; k < 5; k += 1) {
        const gap = arrivals[k]!.at - arrivals[k - 1]!.at;
        expect(gap, `gap before attempt ${k + 1}`).to.be.at.least(DELAYS[k - 1]! - 5);
        // Loose upper bound (a loaded machine): it only tells the scaled table from a much longer schedule.
        expect(gap, `gap before attempt ${k + 1}`).to.be.below(DELAYS[k - 1]! + 2_500);
      }
      const detail = await api(m, 'GET', `/webhooks/deliveries/${row!.id}`);
      expect(detail.status).to.equal(200);
      expect(detail.json).to.include({
        status: 'DELIVERED',
        attempts: 5,
        totalAttempts: 5,
        replays: 0,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
        deadAt: null,
      });
      expect(detail.json.history.map((h: Json) => [h.number, h.outcome, h.statusCode])).to.deep.equal([
        [1, 'FAILURE', 500],
        [2, 'FAILURE', 502],
        [3, 'FAILURE', 404],
        [4, 'FAILURE', 302],
        [5, 'SUCCESS', 200],
      ]);
      expect(detail.json.history[3].error).to.match(/redirects are not followed/);
      expect(detail.json.payload).to.deep.equal(JSON.parse(arrivals[0]!.body));
    });

    it('five failures land in the dead-letter queue; a replay delivers the same deliveryId and bytes (a duplicate the receiver recognises)', async () => {
      const path = receiver.path([500, 500, 500, 500, 503]);
      const { m, e, row } = await oneDelivery(path, ['*']);
      dispatcher().start();
      await waitStatus(row!.id, 'DEAD');
      expect(receiver.at(path)).to.have.length(MAX_ATTEMPTS);
      const dead = await api(m, 'GET', '/webhooks/dead-letters');
      expect(dead.status).to.equal(200);
      expect(dead.json.items.map((d: Json) => d.id)).to.deep.equal([row!.id]);
      expect(dead.json.items[0]).to.include({ status: 'DEAD', attempts: 5, lastStatusCode: 503, nextAttemptAt: null });
      expect((await api(m, 'GET', `/webhooks/dead-letters?endpointId=${e.id}`)).json.items).to.have.length(1);
      expect((await api(m, 'GET', `/webhooks/endpoints/${e.id}/deliveries?status=DEAD`)).json.items).to.have.length(1);
      // The merchant is told in-app, in the statement that dead-letters the delivery (docs/messaging.md).
      const notices = await q('SELECT topic FROM merchant_notifications WHERE tenant_id = $1 AND dedupe_key = $2', [
        m.owner.tenantId,
        `webhook_dead:${row!.id}`,
      ]);
      expect(notices).to.deep.equal([{ topic: 'webhooks.delivery_dead' }]);

      const replay = await api(m, 'POST', `/webhooks/deliveries/${row!.id}/replay`);
      expect(replay.status, replay.text).to.equal(202);
      expect(replay.json).to.include({ id: row!.id, status: 'PENDING', attempts: 0, replays: 1 });
      await waitStatus(row!.id, 'DELIVERED');
      const arrivals = receiver.at(path);
      expect(arrivals).to.have.length(6);
      expect(arrivals[5]!.headers['x-service-delivery-id']).to.equal(row!.id);
      expect(arrivals[5]!.body).to.equal(arrivals[0]!.body);
      verifyRequest(arrivals[5]!, e.secret, 'product.created');
      expect((await api(m, 'GET', '/webhooks/dead-letters')).json.items).to.deep.equal([]);

      // Replaying a delivered one sends it again: the receiver sees the same deliveryId twice and processes it once.
      expectProblem(await api(m, 'POST', `/webhooks/deliveries/${uuidv7()}/replay`), 404, 'webhook_delivery_not_found');
      expect((await api(m, 'POST', `/webhooks/deliveries/${row!.id}/replay`)).status).to.equal(202);
      await eventually(async () => (await deliveryRow(row!.id)).total_attempts === 7, 'the duplicate', 15_000);
      expect(receiver.at(path)).to.have.length(7);
      const seen = new Set<string>();
      let processed = 0;
      for (const r of receiver.at(path).filter((x) => x.at >= arrivals[5]!.at)) {
        const id = r.headers['x-service-delivery-id'] as string;
        if (!seen.has(id)) processed += 1;
        seen.add(id);
      }
      expect(processed).to.equal(1);
      const detail = await api(m, 'GET', `/webhooks/deliveries/${row!.id}`);
      expect(detail.json).to.include({ status: 'DELIVERED', replays: 2, totalAttempts: 7, attempts: 1 });
      expect(detail.json.history.map((h: Json) => h.number)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
      const audits = (await auditRows(server, m.owner.tenantId)).filter((a) => a.action === 'webhook_delivery.replay');
      expect(audits).to.have.length(2);
    });

    it('a pending delivery cannot be replayed; replay-all replays the whole dead-letter queue', async () => {
      const m = await newMerchant();
      const path = receiver.path(new Array(10).fill(500));
      const e = await endpoint(m, { url: `${receiver.base}${path}`, topics: ['product.created'] });
      await createProduct(server, m);
      await createProduct(server, m);
      await fanOut(m.owner.tenantId);
      const ids = (await q('SELECT id FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY id', [m.owner.tenantId])).map(
        (r) => r.id as string,
      );
      expectProblem(await api(m, 'POST', `/webhooks/deliveries/${ids[0]}/replay`), 409, 'webhook_delivery_pending');
      dispatcher().start();
      for (const id of ids) await waitStatus(id, 'DEAD');
      expect((await api(m, 'POST', '/webhooks/dead-letters/replay')).status).to.equal(400);
      expect((await api(m, 'POST', '/webhooks/dead-letters/replay', { endpointId: 'nope' })).status).to.equal(400);
      const all = await api(m, 'POST', '/webhooks/dead-letters/replay', { endpointId: e.id });
      expect(all.status, all.text).to.equal(202);
      expect(all.json).to.deep.equal({ replayed: 2, remaining: 0 });
      for (const id of ids) await waitStatus(id, 'DELIVERED');
      expect(new Set(receiver.at(path).map((r) => r.headers['x-service-delivery-id']))).to.deep.equal(new Set(ids));
      expect((await api(m, 'POST', '/webhooks/dead-letters/replay', {})).json).to.deep.equal({ replayed: 0, remaining: 0 });
    });

    it('a restart in the middle of the schedule loses nothing: a new dispatcher continues from PostgreSQL, and takes over an expired claim of a dead one', async () => {
      const path = receiver.path([500]);
      const { m, e, row } = await oneDelivery(path);
      const first = dispatcher();
      first.start();
      await eventually(async () => (await deliveryRow(row!.id)).attempts === 1, 'attempt 1', 15_000);
      await first.stop();
      expect(await deliveryRow(row!.id)).to.include({ status: 'PENDING', attempts: 1, claim_token: null });
      const second = dispatcher();
      second.start();
      await waitStatus(row!.id, 'DELIVERED');
      const arrivals = receiver.at(path);
      expect(arrivals).to.have.length(2);
      expect(arrivals[1]!.at - arrivals[0]!.at).to.be.at.least(DELAYS[0]! - 5);
      verifyRequest(arrivals[1]!, e.secret, 'product.created');
      await second.stop();

      // A dispatcher that claimed a delivery and died: the claim blocks others until it expires.
      const path2 = receiver.path();
      await api(m, 'PATCH', `/webhooks/endpoints/${e.id}`, { url: `${receiver.base}${path2}` });
      await createProduct(server, m);
      await fanOut(m.owner.tenantId);
      const [held] = await q('SELECT id FROM webhook_deliveries WHERE tenant_id = $1 AND status = $2', [m.owner.tenantId, 'PENDING']);
      await q("UPDATE webhook_deliveries SET claim_token = $2, claimed_until = now() + interval '1 hour' WHERE id = $1", [
        held!.id,
        uuidv7(),
      ]);
      const third = dispatcher();
      await third.runOnce();
      expect(receiver.at(path2)).to.have.length(0);
      await q("UPDATE webhook_deliveries SET claimed_until = now() - interval '1 second' WHERE id = $1", [held!.id]);
      await third.runOnce();
      expect(await deliveryRow(held!.id)).to.include({ status: 'DELIVERED', attempts: 1 });
      expect(receiver.at(path2).map((r) => r.headers['x-service-delivery-id'])).to.deep.equal([held!.id]);
    });

    it('times out a receiver that does not answer, refuses private addresses unless allowed, and pauses deliveries of a disabled endpoint', async () => {
      const hang = receiver.path([], { hang: true });
      const { m, e, row } = await oneDelivery(hang);
      await dispatcher({ timeoutMs: 300 }).runOnce();
      expect(await deliveryRow(row!.id)).to.include({
        status: 'PENDING',
        attempts: 1,
        last_status_code: null,
        last_error: 'No answer within 300 ms.',
      });

      // Without the test allowance, 127.0.0.1 is not a public address: the attempt fails before connecting.
      await q('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [row!.id]);
      const before = receiver.requests.length;
      await dispatcher({ allowAddresses: [] }).runOnce();
      expect(receiver.requests.length).to.equal(before);
      expect((await deliveryRow(row!.id)).last_error).to.match(/not a public address/);

      // Disabled: the pending delivery waits, and new events make no delivery.
      expect(
        (await api(m, 'PATCH', `/webhooks/endpoints/${e.id}`, { enabled: false, url: `${receiver.base}${receiver.path()}` })).status,
      ).to.equal(200);
      await q('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [row!.id]);
      await dispatcher().runOnce();
      expect(await deliveryRow(row!.id)).to.include({ status: 'PENDING', attempts: 2 });
      await createProduct(server, m);
      expect(
        await q("SELECT 1 FROM outbox WHERE tenant_id = $1 AND queue = 'webhooks' AND status = 'pending'", [m.owner.tenantId]),
      ).to.have.length(0);
      expect((await api(m, 'PATCH', `/webhooks/endpoints/${e.id}`, { enabled: true })).status).to.equal(200);
      await dispatcher().runOnce();
      expect(await deliveryRow(row!.id)).to.include({ status: 'DELIVERED', attempts: 3 });
    });

    it('a slow receiver holds one slot while others are delivered; delivered deliveries leave the history after 30 days, dead ones stay', async () => {
      const m = await newMerchant();
      const slow = receiver.path([], { hang: true });
      const fast = receiver.path();
      await endpoint(m, { url: `${receiver.base}${slow}`, topics: ['product.created'] });
      await endpoint(m, { url: `${receiver.base}${fast}`, topics: ['product.updated'] });
      const p = await createProduct(server, m);
      await fanOut(m.owner.tenantId);
      const d = dispatcher({ concurrency: 2, timeoutMs: 5_000, claimTimeoutMs: 10_000 });
      d.start();
      await eventually(async () => receiver.at(slow).length === 1, 'the slow request', 15_000);
      for (let i = 0; i < 3; i += 1) {
        expect((await api(m, 'PUT', `/catalog/products/${p.id}`, { title: `Renamed ${i}`, type: 'PHYSICAL', price: 10 })).status).to.equal(
          200,
        );
        await fanOut(m.owner.tenantId);
      }
      await eventually(
        async () =>
          (await q("SELECT 1 FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'DELIVERED'", [m.owner.tenantId])).length === 3,
        'three fast deliveries',
        15_000,
      );
      expect(receiver.at(fast)).to.have.length(3);
      expect(receiver.at(slow)).to.have.length(1);
      await q(
        "UPDATE webhook_deliveries SET status = 'DEAD', dead_at = now() - interval '40 days' WHERE tenant_id = $1 AND topic = 'product.created'",
        [m.owner.tenantId],
      );
      const delivered = await q("SELECT id FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'DELIVERED' ORDER BY id", [
        m.owner.tenantId,
      ]);
      expect(delivered).to.have.length(3);
      await q("UPDATE webhook_deliveries SET delivered_at = now() - interval '31 days' WHERE id = $1", [delivered[0]!.id]);
      await q("UPDATE webhook_deliveries SET delivered_at = now() - interval '29 days' WHERE id = $1", [delivered[1]!.id]);
      expect(await d.pruneDelivered()).to.be.at.least(1);
      const left = await q('SELECT id, status FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY id', [m.owner.tenantId]);
      expect(left.map((r) => r.id)).to.not.include(delivered[0]!.id);
      expect(left.map((r) => r.status).sort()).to.deep.equal(['DEAD', 'DELIVERED', 'DELIVERED']);
    });

    it('rotating the secret shows a new one once; later attempts are signed with it, not the old one', async () => {
      const path = receiver.path([500]);
      const { m, e, row } = await oneDelivery(path);
      await dispatcher().runOnce();
      verifyRequest(receiver.at(path)[0]!, e.secret, 'product.created');
      const rotated = await api(m, 'POST', `/webhooks/endpoints/${e.id}/rotate-secret`);
      expect(rotated.status, rotated.text).to.equal(200);
      expect(rotated.json.secret)
        .to.match(/^whsec_/)
        .and.not.equal(e.secret);
      expect(rotated.json).to.include({ id: e.id, secretLast4: rotated.json.secret.slice(-4) });
      expect(rotated.json.secretRotatedAt).to.be.a('string');
      expect((await api(m, 'GET', `/webhooks/endpoints/${e.id}`)).json).to.not.have.property('secret');
      await q('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [row!.id]);
      await dispatcher().runOnce();
      const second = receiver.at(path)[1]!;
      verifyRequest(second, rotated.json.secret, 'product.created');
      expect(verifyWebhookSignature({ rawBody: second.body, header: second.headers['x-service-signature'], secret: e.secret })).to.include({
        ok: false,
        reason: 'signature_mismatch',
      });
      expect(
        verifyWebhookSignature({
          rawBody: second.body,
          header: second.headers['x-service-signature'],
          secret: [e.secret, rotated.json.secret],
        }).ok,
      ).to.equal(true);
      expect((await auditRows(server, m.owner.tenantId)).filter((a) => a.action === 'webhook_endpoint.rotate_secret')).to.have.length(1);
    });

    it("the jobs role's consumer table fans events out from the webhooks queue in Redis", async () => {
      const m = await newMerchant();
      const path = receiver.path();
      await endpoint(m, { url: `${receiver.base}${path}`, topics: ['product.created'] });
      await createProduct(server, m);
      const [event] = await q("SELECT aggregate_id FROM outbox WHERE tenant_id = $1 AND queue = 'webhooks'", [m.owner.tenantId]);
      const prefix = `webhooks-${uuidv7().slice(-12)}`;
      const { redisUrl } = server.runtime.config;
      const producers = new QueueRegistry({ redisUrl, isWorker: false, logger: silentLogger, prefix });
      const table = jobsConsumers(server.runtime);
      expect(table).to.have.property('webhooks');
      const consumers = startConsumers(
        { dataSource: server.runtime.dataSource, redisUrl, logger: silentLogger, outbox: RETRY, prefix },
        { webhooks: table.webhooks },
      );
      try {
        await q(
          "UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1 WHERE queue = 'webhooks' AND aggregate_id = $1",
          [event!.aggregate_id],
        );
        await producers
          .get('webhooks')
          .createJob({ aggregateType: 'webhook_event', aggregateId: event!.aggregate_id, tenantId: m.owner.tenantId })
          .setId(jobIdFor('webhook_event', event!.aggregate_id))
          .save();
        await eventually(
          async () =>
            (await q("SELECT status FROM outbox WHERE queue = 'webhooks' AND aggregate_id = $1", [event!.aggregate_id]))[0]!.status ===
            'done',
          'the event row done',
          15_000,
        );
        expect(await q('SELECT topic FROM webhook_deliveries WHERE tenant_id = $1', [m.owner.tenantId])).to.deep.equal([
          { topic: 'product.created' },
        ]);
      } finally {
        await consumers.stop(2_000);
        await producers.close(1_000);
      }
    });
  });

  describe('POST /webhooks/test', () => {
    it('accepts all 33 topics and sends each, signed with the test secret, with realistic data', async () => {
      const m = await newMerchant();
      const path = receiver.path();
      const url = `${receiver.base}${path}`;
      const answers: Json[] = [];
      for (const topic of WEBHOOK_TOPICS) {
        const res = await api(m, 'POST', '/webhooks/test', { topic, endpoint: url });
        expect(res.status, res.text).to.equal(202);
        expect(res.json).to.include({ topic, endpoint: url, endpointId: null, signedWith: 'TEST_SECRET' });
        expect(res.json.payload).to.include({ topic, deliveryId: res.json.deliveryId, tenantId: m.owner.tenantId });
        answers.push(res.json);
      }
      const secret = answers[0]!.testSecret as string;
      expect(secret).to.match(/^whsec_/);
      expect(new Set(answers.map((a) => a.testSecret)).size).to.equal(1);
      dispatcher().start();
      await eventually(async () => receiver.at(path).length >= 33, '33 arrivals', 15_000);
      const byTopic = new Map<string, Json>();
      for (const r of receiver.at(path))
        byTopic.set(r.headers['x-service-topic'] as string, verifyRequest(r, secret, r.headers['x-service-topic'] as string));
      expect([...byTopic.keys()].sort()).to.deep.equal([...WEBHOOK_TOPICS].sort());
      for (const a of answers) {
        const envelope = byTopic.get(a.topic)!;
        expect(envelope).to.deep.equal(a.payload);
        expect(Object.keys(envelope.data).length, a.topic).to.be.at.least(2);
      }
      const placed = byTopic.get('order.placed')!.data;
      expect(placed).to.include.keys('orderId', 'total', 'currency', 'customerId');
      expect(placed.total).to.be.a('number');
      expect(placed.currency).to.match(/^[A-Z]{3}$/);
      await waitStatus(answers[0]!.deliveryId, 'DELIVERED');
      const detail = await api(m, 'GET', `/webhooks/deliveries/${answers[0]!.deliveryId}`);
      expect(detail.json).to.include({ test: true, endpointId: null, url, status: 'DELIVERED' });
      expect((await auditRows(server, m.owner.tenantId)).filter((a) => a.action === 'webhook_delivery.test')).to.have.length(33);
    });

    it("signs with the endpoint's secret when the URL is a registered endpoint; retries like production; validates its body and caller", async () => {
      const m = await newMerchant();
      const path = receiver.path([500]);
      const e = await endpoint(m, { url: `${receiver.base}${path}`, topics: ['order.placed'] });
      const res = await api(m, 'POST', '/webhooks/test', { topic: 'payment.refunded', endpoint: `${receiver.base}${path}` });
      expect(res.status, res.text).to.equal(202);
      expect(res.json).to.include({ endpointId: e.id, signedWith: 'ENDPOINT_SECRET', testSecret: null });
      dispatcher().start();
      await waitStatus(res.json.deliveryId, 'DELIVERED');
      const arrivals = receiver.at(path);
      expect(arrivals).to.have.length(2);
      expect(arrivals[1]!.at - arrivals[0]!.at).to.be.at.least(DELAYS[0]! - 5);
      for (const r of arrivals) verifyRequest(r, e.secret, 'payment.refunded');
      const history = await api(m, 'GET', `/webhooks/endpoints/${e.id}/deliveries`);
      expect(history.json.items.map((d: Json) => [d.id, d.test])).to.deep.equal([[res.json.deliveryId, true]]);

      const bad = async (body: Json, path: string): Promise<void> => {
        const r = await api(m, 'POST', '/webhooks/test', body);
        expect(r.status, r.text).to.equal(400);
        expect(r.json.errors.map((x: Json) => x.path).join(' ')).to.contain(path);
      };
      await bad({ endpoint: e.url }, 'topic');
      await bad({ topic: 'order.shipped', endpoint: e.url }, 'topic');
      await bad({ topic: 'order.placed' }, 'endpoint');
      await bad({ topic: 'order.placed', endpoint: 'mailto:a@example.com' }, 'endpoint');
      await bad({ topic: 'order.placed', endpoint: 'http://192.168.1.10/hook' }, 'endpoint');
      await bad({ topic: 'order.placed', endpoint: e.url, extra: 1 }, 'extra');
      const staff = await addMember(server, m.owner, 'staff');
      expectProblem(
        await api(m, 'POST', '/webhooks/test', { topic: 'order.placed', endpoint: e.url }, staff.headers),
        403,
        'insufficient_role',
      );
      const key = await apiKey(server, m, ['webhooks:write']);
      const byKey = await api(m, 'POST', '/webhooks/test', { topic: 'order.placed', endpoint: `${receiver.base}${receiver.path()}` }, key);
      expect(byKey.status, byKey.text).to.equal(202);
      expect(byKey.json.signedWith).to.equal('TEST_SECRET');
      const readOnly = await apiKey(server, m, ['webhooks:read']);
      expectProblem(
        await api(m, 'POST', '/webhooks/test', { topic: 'order.placed', endpoint: e.url }, readOnly),
        403,
        'insufficient_scope',
      );
      expect((await call(server, 'POST', '/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: e.url } })).status).to.equal(
        401,
      );
    });
  });
});
