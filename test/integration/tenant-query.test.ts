/**
 * Raw SQL through tenantQuery cannot read another tenant's rows: the tenant is bound by the helper,
 * a query that does not filter on it is refused before it runs, and a caller's parameter cannot
 * stand in for it.
 */
import { expect } from 'chai';
import { testRuntime } from '../helpers/harness';
import { systemContext, type RequestContext } from '../../storage/request-context';
import { bindTenant, tenantQuery, TenantQueryError } from '../../storage/tenant-query';
import { uuidv7 } from '../../storage/ids';
import type { Runtime } from '../../app/runtime';

const TABLE = `test_tenant_query_${process.pid}`;

describe('tenantQuery: raw SQL bound to the request tenant', () => {
  let runtime: Runtime;
  const tenantA = uuidv7();
  const tenantB = uuidv7();
  const ctxOf = (tenantId?: string): RequestContext => systemContext(runtime.dataSource, 'tenant-query', tenantId);

  before(async () => {
    runtime = await testRuntime();
    await runtime.dataSource.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (id uuid PRIMARY KEY, tenant_id uuid NOT NULL, name text NOT NULL)`,
    );
    await runtime.dataSource.query(`INSERT INTO ${TABLE} (id, tenant_id, name) VALUES ($1, $2, 'a1'), ($3, $2, 'a2'), ($4, $5, 'b1')`, [
      uuidv7(),
      tenantA,
      uuidv7(),
      uuidv7(),
      tenantB,
    ]);
  });

  after(async () => {
    await runtime.dataSource.query(`DROP TABLE IF EXISTS ${TABLE}`);
  });

  it("reads only the request tenant's rows", async () => {
    const rows = await tenantQuery<{ name: string }>(ctxOf(tenantA), `SELECT name FROM ${TABLE} WHERE tenant_id = $tenant ORDER BY name`);
    expect(rows.map((r) => r.name)).to.deep.equal(['a1', 'a2']);
    const other = await tenantQuery<{ name: string }>(
      ctxOf(tenantB),
      `SELECT name FROM ${TABLE} WHERE tenant_id = $tenant AND name LIKE $1`,
      ['%'],
    );
    expect(other.map((r) => r.name)).to.deep.equal(['b1']);
  });

  it('refuses a query that does not filter on the tenant, before it runs', async () => {
    let error: unknown;
    await tenantQuery(ctxOf(tenantA), `SELECT name FROM ${TABLE}`).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(TenantQueryError);
    expect((error as Error).message).to.match(/must filter on \$tenant/);
  });

  it('refuses a context without a tenant', async () => {
    let error: unknown;
    await tenantQuery(ctxOf(undefined), `SELECT name FROM ${TABLE} WHERE tenant_id = $tenant`).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(TenantQueryError);
  });

  it("binds the tenant as its own parameter, after the caller's: a caller's value cannot stand in for it", async () => {
    expect(bindTenant('SELECT 1 WHERE a = $1 AND t = $tenant AND u = $tenant', ['x'], tenantA)).to.deep.equal({
      text: 'SELECT 1 WHERE a = $1 AND t = $2 AND u = $2',
      values: ['x', tenantA],
    });
    const rows = await tenantQuery<{ name: string }>(ctxOf(tenantA), `SELECT name FROM ${TABLE} WHERE tenant_id = $tenant AND name = $1`, [
      'b1',
    ]);
    expect(rows).to.deep.equal([]);
  });
});
