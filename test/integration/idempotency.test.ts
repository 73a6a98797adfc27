/**
 * Idempotency keys against the real database: duplicates that arrive while the first attempt runs
 * get its result; when the first attempt fails, a duplicate waiting on it claims the key afresh and
 * runs the work itself (rather than spinning on the failed attempt), and a different request under
 * the same key is refused.
 */
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { testRuntime } from '../helpers/harness';
import { idempotent } from '../../storage/idempotency';
import { systemContext } from '../../storage/request-context';
import { uuidv7 } from '../../storage/ids';

describe('idempotency keys', function () {
  this.timeout(20_000);
  let dataSource: DataSource;
  const scope = `test.idempotency.${process.pid}`;

  before(async () => {
    dataSource = (await testRuntime()).dataSource;
  });
  after(async () => {
    await dataSource.query('DELETE FROM idempotency_keys WHERE scope = $1', [scope]);
  });

  const ctx = () => systemContext(dataSource, uuidv7());
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('runs the work once for concurrent duplicates and gives each the same result', async () => {
    const key = uuidv7();
    let runs = 0;
    const work = async () => {
      runs += 1;
      await tick();
      return { identifier: uuidv7(), at: new Date() };
    };
    const answers = await Promise.all(Array.from({ length: 20 }, () => idempotent(ctx(), scope, key, { a: 1 }, work)));
    expect(runs).to.equal(1);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).to.equal(1);
    // A later replay reads the stored answer: the same JSON, keys in the same order.
    const replay = await idempotent(ctx(), scope, key, { a: 1 }, work);
    expect(JSON.stringify(replay)).to.equal(JSON.stringify(answers[0]));
    expect(runs).to.equal(1);
    let failed: unknown;
    await idempotent(ctx(), scope, key, { a: 2 }, work).catch((error: unknown) => (failed = error));
    expect((failed as { code?: string }).code).to.equal('idempotency_key_reused');
  });

  it('lets a waiting duplicate run the work itself when the first attempt fails', async () => {
    const key = uuidv7();
    let runs = 0;
    let started!: () => void;
    const firstRunning = new Promise<void>((resolve) => (started = resolve));
    const first = idempotent(ctx(), scope, key, { a: 1 }, async () => {
      runs += 1;
      started();
      await tick();
      throw new Error('out of stock');
    });
    // The duplicate arrives while the first attempt holds the key.
    await firstRunning;
    const second = idempotent(ctx(), scope, key, { a: 1 }, async () => {
      runs += 1;
      return 'second';
    });
    let error: unknown;
    await first.catch((e: unknown) => (error = e));
    expect(String(error)).to.contain('out of stock');
    expect(await second).to.equal('second');
    expect(runs).to.equal(2);
    expect(await idempotent(ctx(), scope, key, { a: 1 }, async () => 'third')).to.equal('second');
  });
});
