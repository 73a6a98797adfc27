/**
 * Tenant scoping (docs/decisions.md, Tenancy) against the real test database: a tenant's repository only reads
 * its own rows, stamps its tenant on what it writes, cannot change or delete another tenant's rows,
 * and answers "not found" for another tenant's row exactly as for a missing one.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { testRuntime } from '../helpers/harness';
import { defineErrorCodes, NotFoundError } from '../../lib/errors';
import { inTransaction, systemContext, type RequestContext } from '../../storage/request-context';
import { tenantRepository, TenantRepository } from '../../storage/tenancy';
import { uuidv7 } from '../../storage/ids';

/** A table of this process only, so parallel runs on the same database cannot disturb each other. */
const TABLE = `test_tenant_widgets_${process.pid}`;

@Entity({ name: TABLE })
class Widget {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @Column('text')
  name!: string;
}

interface RawRow {
  id: string;
  tenant_id: string;
  name: string;
}

async function expectRejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  expect.fail('expected the promise to reject');
}

describe('tenant-scoped repositories', () => {
  let dataSource: DataSource;
  let tenantA: string;
  let tenantB: string;
  let ctxA: RequestContext;
  let ctxB: RequestContext;
  let repoA: TenantRepository<Widget>;
  let repoB: TenantRepository<Widget>;
  // Rows: A owns a1 (alpha) and a2 (beta); B owns b1 (alpha) and b2 (gamma).
  let a1: string;
  let a2: string;
  let b1: string;
  let b2: string;

  const rawRow = async (id: string): Promise<RawRow | undefined> =>
    ((await dataSource.query(`SELECT id, tenant_id, name FROM ${TABLE} WHERE id = $1`, [id])) as RawRow[])[0];

  const ids = (widgets: Widget[]): string[] => widgets.map((w) => w.id).sort();

  before(async () => {
    const { config } = await testRuntime();
    dataSource = new DataSource({
      type: 'postgres',
      url: config.databaseUrl,
      entities: [Widget],
      synchronize: false,
      logging: ['error'],
      extra: { max: 4, application_name: 'commerce-test-tenancy', connectionTimeoutMillis: 5_000 },
    });
    await dataSource.initialize();
    await dataSource.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (id uuid PRIMARY KEY, tenant_id uuid NOT NULL, name text NOT NULL)`);
  });

  after(async () => {
    if (!dataSource?.isInitialized) return;
    await dataSource.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await dataSource.destroy();
  });

  beforeEach(async () => {
    await dataSource.query(`DELETE FROM ${TABLE}`);
    tenantA = randomUUID();
    tenantB = randomUUID();
    [a1, a2, b1, b2] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await dataSource.query(
      `INSERT INTO ${TABLE} (id, tenant_id, name) VALUES ($1, $5, 'alpha'), ($2, $5, 'beta'), ($3, $6, 'alpha'), ($4, $6, 'gamma')`,
      [a1, a2, b1, b2, tenantA, tenantB],
    );
    ctxA = systemContext(dataSource, 'test-a', tenantA);
    ctxB = systemContext(dataSource, 'test-b', tenantB);
    repoA = tenantRepository(ctxA, Widget);
    repoB = tenantRepository(ctxB, Widget);
  });

  describe('reads', () => {
    it("find and count see only the tenant's rows", async () => {
      expect(ids(await repoA.find())).to.deep.equal([a1, a2].sort());
      expect(ids(await repoB.find())).to.deep.equal([b1, b2].sort());
      expect(await repoA.count()).to.equal(2);
      expect(ids(await repoA.find({ where: { name: 'alpha' } }))).to.deep.equal([a1]);
      expect(await repoA.count({ where: { name: 'gamma' } })).to.equal(0);
      expect(await repoA.findOneBy({ id: b1 })).to.equal(null);
      expect(await repoA.findOne({ where: { id: b2 } })).to.equal(null);
      expect((await repoA.findOne({ where: { id: a2 } }))?.name).to.equal('beta');
      expect(await repoA.exists({ id: b1 })).to.equal(false);
      expect(await repoA.exists({ id: a1 })).to.equal(true);
    });

    it('a where naming another tenant is overridden, not obeyed', async () => {
      expect(ids(await repoA.find({ where: { tenantId: tenantB } }))).to.deep.equal([a1, a2].sort());
      expect(await repoA.count({ where: { tenantId: tenantB, name: 'gamma' } })).to.equal(0);
      expect(await repoA.findOneBy({ id: b1, tenantId: tenantB })).to.equal(null);
    });

    it('an array where (OR) cannot escape the tenant through any alternative', async () => {
      expect(ids(await repoA.find({ where: [{ name: 'alpha' }, { name: 'gamma' }] }))).to.deep.equal([a1]);
      expect(ids(await repoA.find({ where: [{ id: b1 }, { id: b2 }, { id: a2 }] }))).to.deep.equal([a2]);
      expect(await repoA.count({ where: [{ name: 'gamma' }, { tenantId: tenantB }] })).to.equal(2); // both alternatives pinned to A
      expect(await repoA.findOne({ where: [{ id: b1 }, { name: 'gamma' }] })).to.equal(null);
    });

    it("getOneBy answers another tenant's row with the same 404 as a missing one", async () => {
      const foreign = await expectRejection(repoA.getOneBy({ id: b1 }));
      const missing = await expectRejection(repoA.getOneBy({ id: uuidv7() }));
      expect(foreign).to.be.instanceOf(NotFoundError);
      expect(missing).to.be.instanceOf(NotFoundError);
      expect((foreign as NotFoundError).toProblem()).to.deep.equal((missing as NotFoundError).toProblem());
      expect((foreign as NotFoundError).status).to.equal(404);
      expect((foreign as NotFoundError).code).to.equal('not_found');
      expect((await repoA.getOneBy({ id: a1 })).name).to.equal('alpha');
    });

    it("getOneBy throws the area's own not-found error when one is given", async () => {
      const widgetErrors = defineErrorCodes('test', { widget_not_found: { status: 404, description: 'The widget does not exist.' } });
      const repo = tenantRepository(ctxA, Widget, () => widgetErrors.error('widget_not_found', 'No such widget.'));
      const error = (await expectRejection(repo.getOneBy({ id: b1 }))) as NotFoundError;
      expect(error).to.be.instanceOf(NotFoundError);
      expect(error.toProblem()).to.include({ status: 404, code: 'widget_not_found', detail: 'No such widget.' });
    });

    it('createQueryBuilder is already filtered on the tenant', async () => {
      expect(ids(await repoA.createQueryBuilder('w').getMany())).to.deep.equal([a1, a2].sort());
      expect(ids(await repoA.createQueryBuilder('w').andWhere('w.name = :name', { name: 'alpha' }).getMany())).to.deep.equal([a1]);
      expect(await repoA.createQueryBuilder('w').andWhere('w.id = :id', { id: b1 }).getCount()).to.equal(0);
      expect(ids(await repoB.createQueryBuilder('x').orderBy('x.id').getMany())).to.deep.equal([b1, b2].sort());
    });
  });

  describe('writes', () => {
    it('create() stamps the tenant even when the values carry another tenantId, and save() stores it so', async () => {
      const id = uuidv7();
      const widget = repoA.create({ id, tenantId: tenantB, name: 'delta' });
      expect(widget).to.be.instanceOf(Widget);
      expect(widget.tenantId).to.equal(tenantA);
      await repoA.save(widget);
      expect(await rawRow(id)).to.deep.equal({ id, tenant_id: tenantA, name: 'delta' });
      expect(await repoB.findOneBy({ id })).to.equal(null);
    });

    it("save() of the tenant's own entity updates it", async () => {
      const widget = await repoA.getOneBy({ id: a1 });
      widget.name = 'alpha-2';
      await repoA.save(widget);
      expect(await rawRow(a1)).to.deep.equal({ id: a1, tenant_id: tenantA, name: 'alpha-2' });
    });

    it("save() of another tenant's entity throws 404 and changes nothing", async () => {
      const foreign = await repoB.getOneBy({ id: b1 });
      foreign.name = 'hijacked';
      const error = await expectRejection(repoA.save(foreign));
      expect(error).to.be.instanceOf(NotFoundError);
      expect(await rawRow(b1)).to.deep.equal({ id: b1, tenant_id: tenantB, name: 'alpha' });
    });

    // Regression: save() once compared only the entity's own tenantId, so an entity carrying another
    // tenant's primary key (made by create(), or without tenantId) passed; TypeORM then found the row
    // by primary key alone and UPDATEd it, moving another tenant's row into the caller's tenant.
    it("save() of an entity made by create() with another tenant's id cannot take that tenant's row over", async () => {
      const outcome = await repoA.save(repoA.create({ id: b1, name: 'hijacked' })).then(
        () => 'saved',
        () => 'refused',
      );
      expect(await rawRow(b1)).to.deep.equal({ id: b1, tenant_id: tenantB, name: 'alpha' });
      expect(outcome).to.equal('refused');
    });

    it("save() of a plain object with another tenant's id and no tenantId cannot take that tenant's row over", async () => {
      const outcome = await repoA.save({ id: b2, name: 'hijacked' } as Widget).then(
        () => 'saved',
        () => 'refused',
      );
      expect(await rawRow(b2)).to.deep.equal({ id: b2, tenant_id: tenantB, name: 'gamma' });
      expect(outcome).to.equal('refused');
    });

    it("update() with another tenant's id affects 0 rows and leaves the row unchanged", async () => {
      expect(await repoA.update({ id: b1 }, { name: 'changed' })).to.equal(0);
      expect(await rawRow(b1)).to.deep.equal({ id: b1, tenant_id: tenantB, name: 'alpha' });
      expect(await repoA.update({ name: 'alpha' }, { name: 'changed' })).to.equal(1);
      expect((await rawRow(a1))!.name).to.equal('changed');
      expect((await rawRow(b1))!.name).to.equal('alpha');
    });

    it('update() ignores a tenantId in the new values', async () => {
      expect(await repoA.update({ id: a2 }, { name: 'moved?', tenantId: tenantB })).to.equal(1);
      expect(await rawRow(a2)).to.deep.equal({ id: a2, tenant_id: tenantA, name: 'moved?' });
    });

    it("delete() with another tenant's id affects 0 rows and leaves the row in place", async () => {
      expect(await repoA.delete({ id: b1 })).to.equal(0);
      expect(await rawRow(b1)).to.deep.equal({ id: b1, tenant_id: tenantB, name: 'alpha' });
      expect(await repoA.delete({ name: 'alpha' })).to.equal(1);
      expect(await rawRow(a1)).to.equal(undefined);
      expect(await rawRow(b1)).to.not.equal(undefined);
      expect(await repoB.count()).to.equal(2);
    });

    it("works on the request's transaction: a rolled-back write leaves nothing", async () => {
      const id = uuidv7();
      const error = await expectRejection(
        inTransaction(ctxA, async (tx) => {
          const repo = tenantRepository(tx, Widget);
          await repo.save(repo.create({ id, name: 'temporary' }));
          expect(await repo.count()).to.equal(3); // visible inside the transaction
          throw new Error('roll back');
        }),
      );
      expect(error.message).to.equal('roll back');
      expect(await rawRow(id)).to.equal(undefined);
      expect(await repoA.count()).to.equal(2);
    });
  });

  it('tenantRepository(ctx) refuses a context without a tenant', () => {
    const anonymous = systemContext(dataSource, 'test-none');
    expect(() => tenantRepository(anonymous, Widget)).to.throw('tenantRepository needs a request context with a tenant');
    expect(() => tenantRepository({ ...anonymous, tenantId: '' }, Widget)).to.throw(
      'tenantRepository needs a request context with a tenant',
    );
  });
});
