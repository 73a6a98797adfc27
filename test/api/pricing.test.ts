/**
 * Pricing rules and POST /pricing/compute: CRUD with audit and outbox rows, every DTO bound, tenant
 * isolation, the engine's precedence and stacking policy, quantity tiers, date windows (through `at`
 * and, for the index, the scheduler), scopes (products, category subtrees, brands, collections),
 * customer groups, rounding to the minor unit and never going below 0.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import {
  assignCategory,
  apiKey,
  brand,
  category,
  collection,
  customer,
  merchant,
  product,
  store,
  variant,
  type Merchant,
} from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { runPricingSchedulerPass, SCHEDULER_LAG_MS, startPricingScheduler } from '../../api/pricing/reprice';
import { deliverIndexRows, indexHandler, silentLogger } from '../helpers/indexing';
import { storeIndexUid } from '../../search/index-names';
import { priceUnit, type EngineRule } from '../../domain/pricing-engine';
import { repriced, writeCalls } from './pricing.helpers';
import { eventually, sleepUntil } from '../helpers/wait';

const RULES = '/api/v1/pricing/rules';
const COMPUTE = '/api/v1/pricing/compute';

describe('pricing rules', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));

  const {
    create,
    created: rule,
    patch,
  } = writeCalls(
    () => server,
    RULES,
    () => ({ name: 'Rule', type: 'PERCENT', value: 10 }),
  );
  const compute = (m: Merchant, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'POST', COMPUTE, { headers, body: { storeId: m.storeId, ...body } });
  async function priced(
    m: Merchant,
    items: Array<Record<string, unknown>>,
    extra: Record<string, unknown> = {},
  ): Promise<Record<string, any>> {
    const res = await compute(m, { items, ...extra });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }
  const unit = async (m: Merchant, productId: string, quantity = 1, extra: Record<string, unknown> = {}): Promise<Record<string, any>> =>
    (await priced(m, [{ productId, quantity }], extra)).items[0];

  describe('merchant operations', () => {
    it('creates, lists, updates and deletes a rule with one audit entry and one outbox row per write; a no-op PATCH writes nothing', async () => {
      const m = await newMerchant();
      const productId = await product(server, m, { price: '20', status: 'PUBLISHED' });
      const created = await create(m, {
        name: ' Summer ',
        type: 'PERCENT',
        value: 12.5,
        scope: 'PRODUCTS',
        targetIds: [productId],
        tiers: [
          { minQuantity: 10, value: 20 },
          { minQuantity: 5, value: 15 },
        ],
        priority: 7,
        stackable: true,
        customerGroups: [' VIP '],
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.json).to.deep.include({
        storeId: m.storeId,
        name: 'Summer',
        type: 'PERCENT',
        value: 12.5,
        scope: 'PRODUCTS',
        targetIds: [productId],
        customerGroups: ['vip'],
        priority: 7,
        stackable: true,
        isActive: true,
        state: 'ACTIVE',
        startsAt: null,
        endsAt: null,
      });
      expect(created.json.tiers).to.deep.equal([
        { minQuantity: 5, value: 15 },
        { minQuantity: 10, value: 20 },
      ]);
      const id = created.json.id;

      const listed = await call(server, 'GET', `${RULES}?storeId=${m.storeId}`, { headers: m.headers });
      expect(listed.status, listed.text).to.equal(200);
      expect(listed.json.items.map((r: { id: string }) => r.id)).to.deep.equal([id]);
      expect(listed.json.nextCursor).to.equal(null);

      const updated = await patch(m, id, { value: 30, startsAt: '2099-01-01T00:00:00Z' });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.json).to.include({ value: 30, state: 'SCHEDULED', startsAt: '2099-01-01T00:00:00.000Z' });
      const same = await patch(m, id, { value: 30 });
      expect(same.status).to.equal(200);

      const deleted = await call(server, 'DELETE', `${RULES}/${id}`, { headers: m.headers });
      expect(deleted.status, deleted.text).to.equal(204);
      expectProblem(await call(server, 'DELETE', `${RULES}/${id}`, { headers: m.headers }), 404, 'pricing_rule_not_found');

      const audit = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_type === 'pricing_rule');
      expect(audit.map((a) => a.action)).to.deep.equal(['pricing_rule.create', 'pricing_rule.update', 'pricing_rule.delete']);
      expect(audit[1]!.before).to.include({ value: '12.5', startsAt: null });
      expect(audit[1]!.after).to.include({ value: '30', startsAt: '2099-01-01T00:00:00.000Z' });
      const events = await db("SELECT topic FROM outbox WHERE tenant_id = $1 AND aggregate_type = 'pricing_rule' ORDER BY id", [
        m.owner.tenantId,
      ]);
      expect(events.map((e) => e.topic)).to.deep.equal(['pricing_rule.created', 'pricing_rule.updated', 'pricing_rule.deleted']);
    });

    it('pages the list newest first with cursor and limit', async () => {
      const m = await newMerchant();
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await rule(m, { name: `R${i}` })).id);
      const first = await call(server, 'GET', `${RULES}?storeId=${m.storeId}&limit=2`, { headers: m.headers });
      expect(first.json.items.map((r: { id: string }) => r.id)).to.deep.equal([ids[2], ids[1]]);
      expect(first.json.nextCursor).to.equal(ids[1]);
      const second = await call(server, 'GET', `${RULES}?storeId=${m.storeId}&limit=2&cursor=${first.json.nextCursor}`, {
        headers: m.headers,
      });
      expect(second.json.items.map((r: { id: string }) => r.id)).to.deep.equal([ids[0]]);
      expect(second.json.nextCursor).to.equal(null);
      for (const q of ['limit=0', 'limit=201', 'cursor=nope', 'extra=1'])
        expectProblem(await call(server, 'GET', `${RULES}?storeId=${m.storeId}&${q}`, { headers: m.headers }), 400, 'validation_failed');
      expectProblem(await call(server, 'GET', RULES, { headers: m.headers }), 400, 'validation_failed');
    });

    it('queues the reached published products for re-indexing when a rule changes a price seen now, and not for customer-group or future rules', async () => {
      const m = await newMerchant();
      const a = await product(server, m, { price: '20', status: 'PUBLISHED' });
      const b = await product(server, m, { price: '30', status: 'PUBLISHED' });
      await product(server, m, { price: '30', status: 'DRAFT' });
      const groupRule = await rule(m, { customerGroups: ['vip'] });
      const future = await rule(m, { startsAt: '2099-01-01T00:00:00Z' });
      expect(await repriced(server, m)).to.have.length(0);
      const onA = await rule(m, { scope: 'PRODUCTS', targetIds: [a] });
      expect((await repriced(server, m)).map((r) => r.aggregate_id)).to.deep.equal([a]);
      // Moving the rule from a to b re-indexes both.
      expect((await patch(m, onA.id, { targetIds: [b] })).status).to.equal(200);
      expect(
        (await repriced(server, m))
          .map((r) => r.aggregate_id)
          .slice(1)
          .sort(),
      ).to.deep.equal([a, b].sort());
      const all = await rule(m, {});
      expect(
        (await repriced(server, m))
          .slice(3)
          .map((r) => r.aggregate_id)
          .sort(),
      ).to.deep.equal([a, b].sort());
      expect((await repriced(server, m)).at(-1)!.payload).to.deep.equal({ pricingRuleId: all.id, change: 'created' });
      expect(groupRule.state).to.equal('ACTIVE');
      expect(future.state).to.equal('SCHEDULED');
    });

    it('rejects every out-of-bounds field with 400', async () => {
      const m = await newMerchant();
      const productId = await product(server, m, { status: 'PUBLISHED' });
      const many = (n: number, make: (i: number) => unknown): unknown[] => Array.from({ length: n }, (_, i) => make(i));
      const bad: Array<Record<string, unknown>> = [
        { name: '' },
        { name: 'x'.repeat(121) },
        { type: 'BOGUS' },
        { value: -1 },
        { value: 1_000_000_001, type: 'FIXED_AMOUNT' },
        { value: 1.00001, type: 'FIXED_AMOUNT' },
        { value: '10' },
        { value: 100.5 },
        { value: 12.345 },
        { scope: 'EVERYTHING' },
        { scope: 'ALL', targetIds: [productId] },
        { scope: 'PRODUCTS' },
        { scope: 'PRODUCTS', targetIds: ['not-a-uuid'] },
        { scope: 'PRODUCTS', targetIds: [productId, productId] },
        { scope: 'PRODUCTS', targetIds: many(501, () => uuidv7()) },
        { customerGroups: [''] },
        { customerGroups: ['x'.repeat(51)] },
        { customerGroups: many(21, (i) => `g${i}`) },
        { customerGroups: ['vip', 'VIP'] },
        { tiers: [{ minQuantity: 1, value: 5 }] },
        { tiers: [{ minQuantity: 100_001, value: 5 }] },
        {
          tiers: [
            { minQuantity: 2, value: 5 },
            { minQuantity: 2, value: 6 },
          ],
        },
        { tiers: [{ minQuantity: 2, value: 101 }] },
        { tiers: [{ minQuantity: 2 }] },
        { tiers: many(21, (i) => ({ minQuantity: i + 2, value: 1 })) },
        { priority: -1 },
        { priority: 1001 },
        { priority: 1.5 },
        { stackable: 'yes' },
        { startsAt: 'tomorrow' },
        { startsAt: '2030-01-02T00:00:00Z', endsAt: '2030-01-01T00:00:00Z' },
        { startsAt: '2030-01-01T00:00:00Z', endsAt: '2030-01-01T00:00:00Z' },
        { unknown: true },
      ];
      for (const body of bad) expectProblem(await create(m, body), 400, 'validation_failed');
      expectProblem(
        await call(server, 'POST', RULES, { headers: m.headers, body: { name: 'x', type: 'PERCENT', value: 1 } }),
        400,
        'validation_failed',
      );
      // Bounds that hold: 100 %, 2 decimals, a large fixed amount with 4 decimals, 500 targets, 20 groups and tiers.
      expect((await create(m, { value: 100 })).status).to.equal(201);
      expect((await create(m, { value: 12.34 })).status).to.equal(201);
      expect((await create(m, { type: 'FIXED_AMOUNT', value: 1_000_000_000 })).status).to.equal(201);
      expect((await create(m, { type: 'FIXED_PRICE', value: 0.0001 })).status).to.equal(201);
      expect(
        (
          await create(m, {
            value: 0,
            tiers: many(20, (i) => ({ minQuantity: i + 2, value: i + 1 })),
            customerGroups: many(20, (i) => `g${i}`),
            priority: 1000,
          })
        ).status,
      ).to.equal(201);
      const r = await rule(m, {});
      expectProblem(await patch(m, r.id, {}), 400, 'validation_failed');
      expectProblem(await patch(m, r.id, { scope: 'PRODUCTS' }), 400, 'validation_failed');
      expectProblem(await patch(m, r.id, { value: 101 }), 400, 'validation_failed');
      expectProblem(await patch(m, r.id, { storeId: m.storeId }), 400, 'validation_failed');
      // A FIXED_AMOUNT rule of 150 cannot become PERCENT without a new value.
      const fixed = await rule(m, { type: 'FIXED_AMOUNT', value: 150 });
      expectProblem(await patch(m, fixed.id, { type: 'PERCENT' }), 400, 'validation_failed');
      expect((await patch(m, fixed.id, { type: 'PERCENT', value: 15 })).json).to.include({ type: 'PERCENT', value: 15 });
      expectProblem(
        await call(server, 'PATCH', `${RULES}/not-a-uuid`, { headers: m.headers, body: { value: 1 } }),
        400,
        'validation_failed',
      );
    });

    it('keeps tenants apart: another tenant’s store, rules and targets answer 404', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const theirProduct = await product(server, other, { status: 'PUBLISHED' });
      const theirCategory = await category(server, other, { name: 'Theirs' });
      const mine = await rule(m, {});
      expectProblem(await call(server, 'GET', `${RULES}?storeId=${m.storeId}`, { headers: other.headers }), 404, 'store_not_found');
      expectProblem(await create(m, {}, other.headers), 404, 'store_not_found');
      expectProblem(await patch(m, mine.id, { value: 5 }, other.headers), 404, 'pricing_rule_not_found');
      expectProblem(await call(server, 'DELETE', `${RULES}/${mine.id}`, { headers: other.headers }), 404, 'pricing_rule_not_found');
      expectProblem(await create(m, { scope: 'PRODUCTS', targetIds: [theirProduct] }), 404, 'target_not_found');
      expectProblem(await create(m, { scope: 'CATEGORIES', targetIds: [theirCategory] }), 404, 'target_not_found');
      expectProblem(await create(m, { scope: 'BRANDS', targetIds: [uuidv7()] }), 404, 'target_not_found');
      expectProblem(await compute(m, { items: [{ productId: theirProduct }] }), 404, 'product_not_found');
      expectProblem(await compute(m, { items: [{ productId: theirProduct }] }, other.headers), 404, 'store_not_found');
      // An API key of another store of the same tenant sees neither the store nor its rules.
      const secondStore = await store(server, m, { name: 'Second' });
      const key = await apiKey(server, m, ['pricing:read', 'pricing:write'], secondStore);
      expectProblem(await patch(m, mine.id, { value: 5 }, key), 404, 'pricing_rule_not_found');
      expectProblem(await call(server, 'GET', `${RULES}?storeId=${m.storeId}`, { headers: key }), 404, 'store_not_found');
      expect((await call(server, 'GET', `${RULES}?storeId=${secondStore}`, { headers: key })).status).to.equal(200);
      expect((await call(server, 'GET', `${RULES}?storeId=${m.storeId}`)).status).to.equal(401);
    });
  });

  describe('compute', () => {
    it('returns base and final unit prices, line totals, the rules applied and totals; rounds half up once at the end', async () => {
      const m = await newMerchant();
      const a = await product(server, m, { price: '19.99', compare_at_price: '25', status: 'PUBLISHED' });
      const b = await product(server, m, { price: '10.05', status: 'PUBLISHED' });
      const r = await rule(m, { name: 'Half', type: 'PERCENT', value: 50, scope: 'PRODUCTS', targetIds: [b] });
      const ten = await rule(m, { name: 'Ten', type: 'PERCENT', value: 10, scope: 'PRODUCTS', targetIds: [a] });
      const res = await priced(m, [
        { productId: a, quantity: 3 },
        { productId: b, quantity: 2 },
      ]);
      expect(res).to.include({ storeId: m.storeId, currency: 'EUR' });
      expect(res.customerGroups).to.deep.equal([]);
      // 19.99 × 0.9 = 17.991 → 17.99; 10.05 × 0.5 = 5.025 → 5.03 (half up).
      expect(res.items[0]).to.deep.include({
        productId: a,
        variantId: null,
        quantity: 3,
        baseUnitPrice: 19.99,
        unitPrice: 17.99,
        compareAtPrice: 25,
        lineTotal: 53.97,
        discountTotal: 6,
        flashSale: null,
      });
      expect(res.items[0].applied).to.deep.equal([
        { kind: 'PRICING_RULE', id: ten.id, name: 'Ten', type: 'PERCENT', value: 10, amount: 2 },
      ]);
      expect(res.items[1]).to.deep.include({ baseUnitPrice: 10.05, unitPrice: 5.03, lineTotal: 10.06 });
      expect(res.items[1].applied[0]).to.include({ id: r.id, amount: 5.02 });
      expect(res.totals).to.deep.equal({ subtotal: 80.07, discount: 16.04, total: 64.03 });
      // A stored price with more decimals than the currency is rounded half up too.
      const odd = await product(server, m, { price: '9.995', status: 'PUBLISHED' });
      expect(await unit(m, odd)).to.deep.include({ baseUnitPrice: 10, unitPrice: 10, applied: [] });
    });

    it('non-stackable rules: the best single rule wins whatever its priority', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { price: '20', status: 'PUBLISHED' });
      await rule(m, { name: 'Ten', value: 10, priority: 9 });
      const three = await rule(m, { name: 'Three off', type: 'FIXED_AMOUNT', value: 3, priority: 1 });
      const line = await unit(m, p);
      expect(line.unitPrice).to.equal(17);
      expect(line.applied.map((a: { id: string }) => a.id)).to.deep.equal([three.id]);
    });

    it('stackable rules apply in priority order (then age), each to the price the previous one left', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { price: '20', status: 'PUBLISHED' });
      const off = await rule(m, { name: 'One off', type: 'FIXED_AMOUNT', value: 1, priority: 5, stackable: true });
      const pct = await rule(m, { name: 'Ten', value: 10, priority: 10, stackable: true });
      // 10 % first (priority 10): 20 → 18, then 1 off → 17.
      let line = await unit(m, p);
      expect(line.unitPrice).to.equal(17);
      expect(line.applied).to.deep.equal([
        { kind: 'PRICING_RULE', id: pct.id, name: 'Ten', type: 'PERCENT', value: 10, amount: 2 },
        { kind: 'PRICING_RULE', id: off.id, name: 'One off', type: 'FIXED_AMOUNT', value: 1, amount: 1 },
      ]);
      // Same priority: the older rule first: 1 off → 19, then 10 % → 17.10.
      await patch(m, pct.id, { priority: 5 });
      line = await unit(m, p);
      expect(line.unitPrice).to.equal(17.1);
      expect(line.applied.map((a: { id: string }) => a.id)).to.deep.equal([off.id, pct.id]);
      // A non-stackable rule that beats the chain replaces it; on a tie the single rule wins.
      const single = await rule(m, { name: 'Fifteen', value: 14.5 });
      line = await unit(m, p);
      expect(line.unitPrice).to.equal(17.1);
      expect(line.applied.map((a: { id: string }) => a.id)).to.deep.equal([single.id]);
      await patch(m, single.id, { value: 20 });
      expect((await unit(m, p)).unitPrice).to.equal(16);
      // An inactive rule counts for nothing.
      await patch(m, single.id, { isActive: false });
      expect((await unit(m, p)).unitPrice).to.equal(17.1);
    });

    it('FIXED_PRICE sets the unit price only when lower; prices never go below 0', async () => {
      const m = await newMerchant();
      const cheap = await product(server, m, { price: '5', status: 'PUBLISHED' });
      const dear = await product(server, m, { price: '20', status: 'PUBLISHED' });
      await rule(m, { type: 'FIXED_PRICE', value: 9.99 });
      expect((await unit(m, cheap)).unitPrice).to.equal(5);
      expect((await unit(m, dear)).unitPrice).to.equal(9.99);
      const huge = await rule(m, { type: 'FIXED_AMOUNT', value: 50, stackable: true });
      const line = await unit(m, dear, 2);
      expect(line).to.deep.include({ unitPrice: 0, lineTotal: 0 });
      expect(line.applied).to.deep.equal([
        { kind: 'PRICING_RULE', id: huge.id, name: 'Rule', type: 'FIXED_AMOUNT', value: 50, amount: 20 },
      ]);
    });

    it('quantity tiers choose the value by the line quantity', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { price: '10', status: 'PUBLISHED' });
      await rule(m, {
        value: 0,
        tiers: [
          { minQuantity: 5, value: 10 },
          { minQuantity: 10, value: 20 },
        ],
      });
      expect((await unit(m, p, 4)).applied).to.deep.equal([]);
      expect(await unit(m, p, 5)).to.deep.include({ unitPrice: 9, lineTotal: 45 });
      expect((await unit(m, p, 9)).unitPrice).to.equal(9);
      expect(await unit(m, p, 10)).to.deep.include({ unitPrice: 8, lineTotal: 80 });
      expect((await unit(m, p, 10)).applied[0]).to.include({ value: 20, amount: 2 });
    });

    it('date windows: a rule applies from startsAt (inclusive) to endsAt (exclusive), priced as at `at`', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { price: '100', status: 'PUBLISHED' });
      await rule(m, { value: 25, startsAt: '2030-06-01T00:00:00Z', endsAt: '2030-06-08T00:00:00Z' });
      const at = async (iso?: string): Promise<number> => (await unit(m, p, 1, iso ? { at: iso } : {})).unitPrice;
      expect(await at()).to.equal(100);
      expect(await at('2030-05-31T23:59:59.999Z')).to.equal(100);
      expect(await at('2030-06-01T00:00:00Z')).to.equal(75);
      expect(await at('2030-06-07T23:59:59Z')).to.equal(75);
      expect(await at('2030-06-08T00:00:00Z')).to.equal(100);
      const res = await priced(m, [{ productId: p }], { at: '2030-06-02T00:00:00Z' });
      expect(res.at).to.equal('2030-06-02T00:00:00.000Z');
    });

    it('scopes: products, category subtrees, brands and collections', async () => {
      const m = await newMerchant();
      const parent = await category(server, m, { name: 'Clothes' });
      const child = await category(server, m, { name: 'Shirts', parent_id: parent });
      const acme = await brand(server, m, { name: 'Acme' });
      const inChild = await product(server, m, { price: '10', status: 'PUBLISHED' });
      await assignCategory(server, inChild, child);
      const branded = await product(server, m, { price: '10', brand_id: acme, status: 'PUBLISHED' });
      const collected = await product(server, m, { price: '10', status: 'PUBLISHED' });
      const picks = await collection(server, m, [collected]);
      const plain = await product(server, m, { price: '10', status: 'PUBLISHED' });
      await rule(m, { name: 'Cat', value: 10, scope: 'CATEGORIES', targetIds: [parent] });
      await rule(m, { name: 'Brand', value: 20, scope: 'BRANDS', targetIds: [acme] });
      await rule(m, { name: 'Col', value: 30, scope: 'COLLECTIONS', targetIds: [picks] });
      const res = await priced(
        m,
        [inChild, branded, collected, plain].map((productId) => ({ productId })),
      );
      expect(res.items.map((i: { unitPrice: number }) => i.unitPrice)).to.deep.equal([9, 8, 7, 10]);
      expect(res.items.map((i: { applied: Array<{ name: string }> }) => i.applied.map((a) => a.name))).to.deep.equal([
        ['Cat'],
        ['Brand'],
        ['Col'],
        [],
      ]);
    });

    it('customer groups: given groups or the customer’s tags, case-insensitive; never the public price', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const p = await product(server, m, { price: '50', status: 'PUBLISHED' });
      await rule(m, { name: 'VIP', value: 20, customerGroups: ['vip'] });
      expect((await unit(m, p)).unitPrice).to.equal(50);
      expect((await unit(m, p, 1, { customerGroups: ['VIP'] })).unitPrice).to.equal(40);
      expect((await unit(m, p, 1, { customerGroups: ['retail'] })).unitPrice).to.equal(50);
      const vip = await customer(server, m, { tags: ['Vip', 'newsletter'] });
      const res = await priced(m, [{ productId: p }], { customerId: vip });
      expect(res.items[0].unitPrice).to.equal(40);
      expect(res.customerGroups).to.deep.equal(['newsletter', 'vip']);
      expectProblem(
        await compute(m, { items: [{ productId: p }], customerId: await customer(server, other, { tags: ['vip'] }) }),
        404,
        'customer_not_found',
      );
    });

    it('variants use their own price; currencies: minor units, fixed amounts only in the store currency, mixed lines refused', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { price: '20', status: 'PUBLISHED' });
      const ownPrice = await variant(server, m, p, { price: '30' });
      const inherits = await variant(server, m, p, { price: null });
      const yen = await product(server, m, { price: '999', currency: 'JPY', status: 'PUBLISHED' });
      await rule(m, { value: 15, scope: 'PRODUCTS', targetIds: [p, yen] });
      await rule(m, { type: 'FIXED_AMOUNT', value: 100, stackable: true, scope: 'PRODUCTS', targetIds: [yen] });
      const res = await priced(m, [
        { productId: p, variantId: ownPrice },
        { productId: p, variantId: inherits },
      ]);
      expect(res.items.map((i: { unitPrice: number }) => i.unitPrice)).to.deep.equal([25.5, 17]);
      expect(res.items[0].variantId).to.equal(ownPrice);
      // 999 × 0.85 = 849.15 → 849 (JPY has no minor unit); the EUR amount rule does not touch JPY.
      const y = (await priced(m, [{ productId: yen }])).items[0];
      expect(y).to.deep.include({ unitPrice: 849, baseUnitPrice: 999 });
      expect(y.applied).to.have.length(1);
      expectProblem(await compute(m, { items: [{ productId: p }, { productId: yen }] }), 400, 'mixed_currencies');
      const stranger = await product(server, m, { status: 'PUBLISHED' });
      expectProblem(await compute(m, { items: [{ productId: stranger, variantId: ownPrice }] }), 404, 'variant_not_found');
      expectProblem(await compute(m, { items: [{ productId: uuidv7() }] }), 404, 'product_not_found');
    });

    it('rejects out-of-bounds compute bodies with 400', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { status: 'PUBLISHED' });
      const bad: Array<Record<string, unknown>> = [
        { items: [] },
        { items: Array.from({ length: 101 }, () => ({ productId: p })) },
        { items: [{ productId: p, quantity: 0 }] },
        { items: [{ productId: p, quantity: 100_001 }] },
        { items: [{ productId: p, quantity: 1.5 }] },
        { items: [{ productId: 'x' }] },
        { items: [{ productId: p, variantId: 'x' }] },
        { items: [{ productId: p, extra: 1 }] },
        { items: [{ productId: p }], at: 'soon' },
        { items: [{ productId: p }], customerId: 'x' },
        { items: [{ productId: p }], customerGroups: Array.from({ length: 21 }, (_, i) => `g${i}`) },
        { items: [{ productId: p }], unknown: 1 },
      ];
      for (const body of bad) expectProblem(await compute(m, body), 400, 'validation_failed');
      expectProblem(
        await call(server, 'POST', COMPUTE, { headers: m.headers, body: { items: [{ productId: p }] } }),
        400,
        'validation_failed',
      );
      expect((await compute(m, { items: Array.from({ length: 100 }, () => ({ productId: p, quantity: 100_000 })) })).status).to.equal(200);
    });
  });

  describe('search index', () => {
    it('documents carry the public rule price (no customer group, quantity 1) and go back when the rule is deleted', async () => {
      const m = await newMerchant();
      suite.addIndexedStore(m.storeId);
      const listed = await product(server, m, { price: '50', compare_at_price: '70', status: 'PUBLISHED' });
      const plain = await product(server, m, { price: '40', status: 'PUBLISHED' });
      await indexHandler(server).indexer.syncProducts([listed, plain]);
      const doc = (id: string): Promise<Record<string, any>> => server.runtime.meiliAdmin.index(storeIndexUid(m.storeId)).getDocument(id);
      await rule(m, { customerGroups: ['vip'], value: 50 });
      await rule(m, { value: 10, tiers: [{ minQuantity: 2, value: 40 }] });
      const r = await rule(m, { type: 'FIXED_AMOUNT', value: 5, stackable: true, scope: 'PRODUCTS', targetIds: [plain] });
      expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
      // listed: 50 − 10 % = 45, shown against its higher stored compare-at 70. plain: the stackable 5 off (35) beats the single 10 % (36),
      // shown against its own price. The customer-group rule and the quantity tier never reach the public price.
      expect(await doc(listed)).to.include({ price: 45, compareAtPrice: 70, discountPercent: 36, discounted: true, badge: null });
      expect(await doc(plain)).to.include({ price: 35, compareAtPrice: 40, discountPercent: 13, discounted: true });
      expect((await call(server, 'DELETE', `${RULES}/${r.id}`, { headers: m.headers })).status).to.equal(204);
      expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
      expect(await doc(plain)).to.include({ price: 36, compareAtPrice: 40, discountPercent: 10 });
    });
  });

  describe('engine core', () => {
    const facts = {
      id: 'p',
      currency: 'EUR',
      storeCurrency: 'EUR',
      brandId: null,
      categoryIds: new Set<string>(),
      collectionIds: new Set<string>(),
    };
    const r = (over: Partial<EngineRule>): EngineRule => ({
      id: 'r',
      name: 'r',
      type: 'PERCENT',
      value: '10',
      scope: 'ALL',
      targetIds: new Set(),
      customerGroups: [],
      tiers: [],
      priority: 0,
      stackable: false,
      ...over,
    });
    it('applied amounts add up to base − final after rounding', () => {
      const result = priceUnit(
        '9.99',
        facts,
        1,
        null,
        [r({ id: 'a', value: '33.33', stackable: true }), r({ id: 'b', value: '33.33', stackable: true })],
        [],
      );
      const total = result.applied.reduce((sum, a) => sum + Math.round(a.amount * 100), 0);
      expect(Number(result.base - result.final)).to.equal(total);
      // 9.99 × 0.6667 × 0.6667 = 4.44037… → 4.44
      expect(result.final).to.equal(444n);
    });
  });

  describe('scheduler', () => {
    it('re-indexes the products of a rule when its window opens and when it closes, once per boundary', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { price: '10', status: 'PUBLISHED' });
      await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0);
      const startsAt = new Date(Date.now() + 1_200);
      const endsAt = new Date(startsAt.getTime() + 1_200);
      const r = await rule(m, { scope: 'PRODUCTS', targetIds: [p], startsAt: startsAt.toISOString(), endsAt: endsAt.toISOString() });
      await rule(m, { customerGroups: ['vip'], startsAt: startsAt.toISOString() });
      expect(await repriced(server, m)).to.have.length(0);
      // The passes below run at the real time: the boundaries must have passed.
      await sleepUntil(startsAt);
      const pass = await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0);
      expect(pass.ran).to.equal(true);
      expect(await repriced(server, m)).to.deep.equal([{ aggregate_id: p, payload: { pricingRuleId: r.id, change: 'window' } }]);
      await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0);
      expect(await repriced(server, m)).to.have.length(1);
      await sleepUntil(endsAt);
      await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0);
      expect(await repriced(server, m)).to.have.length(2);
      const [state] = await db('SELECT last_pass_at FROM pricing_schedule_state');
      expect(new Date(state.last_pass_at).getTime()).to.be.at.least(endsAt.getTime());
    });

    it('skips a pass while another process holds the scheduler state', async () => {
      const runner = server.runtime.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query('SELECT last_pass_at FROM pricing_schedule_state WHERE id = 1 FOR UPDATE');
        expect(await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0)).to.deep.equal({
          ran: false,
          rules: 0,
          campaigns: 0,
          products: 0,
        });
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      expect((await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0)).ran).to.equal(true);
    });

    it('the timer loop of the jobs role re-prices a window that opens, within interval + lag, with no manual step', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { price: '10', status: 'PUBLISHED' });
      const startsAt = new Date(Date.now() + 800);
      const r = await rule(m, { scope: 'PRODUCTS', targetIds: [p], startsAt: startsAt.toISOString() });
      const scheduler = startPricingScheduler(server.runtime.dataSource, silentLogger, 100);
      try {
        const due = startsAt.getTime() + SCHEDULER_LAG_MS;
        await eventually(
          async () => (await repriced(server, m)).length > 0,
          'the scheduler to re-price the product',
          due - Date.now() + 3_000,
        );
      } finally {
        await scheduler.stop();
      }
      expect(await repriced(server, m)).to.deep.equal([{ aggregate_id: p, payload: { pricingRuleId: r.id, change: 'window' } }]);
    });
  });
});
