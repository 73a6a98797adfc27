/**
 * isUniqueViolation (storage/db-errors.ts), the one test of "a race lost at a unique index", over the
 * errors the test database really raises: node-postgres's own error and TypeORM's QueryFailedError
 * around it, at a unique constraint and at a unique index, and the other integrity errors it must not
 * take for one.
 */
import { expect } from 'chai';
import { Client } from 'pg';
import { QueryFailedError, type QueryRunner } from 'typeorm';
import { testRuntime } from '../helpers/harness';
import { isUniqueViolation, UNIQUE_VIOLATION } from '../../storage/db-errors';
import { translateDatabaseError } from '../../api/http/db-errors';

/** Temporary tables: each connection has its own, so parallel runs cannot disturb each other. */
const SCHEMA = `
  CREATE TEMP TABLE uv_parents (id int PRIMARY KEY);
  CREATE TEMP TABLE uv_widgets (
    id int PRIMARY KEY,
    code text NOT NULL CONSTRAINT uv_widgets_code UNIQUE,
    slug text,
    parent_id int REFERENCES uv_parents (id)
  );
  CREATE UNIQUE INDEX uv_widgets_slug ON uv_widgets (lower(slug));
  INSERT INTO uv_parents VALUES (1);
  INSERT INTO uv_widgets (id, code, slug, parent_id) VALUES (1, 'a', 'Lamp', 1);
`;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  expect.fail('expected the statement to fail');
}

describe('isUniqueViolation', () => {
  let runner: QueryRunner;
  let client: Client;

  before(async () => {
    const runtime = await testRuntime();
    runner = runtime.dataSource.createQueryRunner();
    await runner.connect();
    await runner.query(SCHEMA);
    client = new Client({ connectionString: runtime.config.databaseUrl });
    await client.connect();
    await client.query(SCHEMA);
  });

  after(async () => {
    await runner?.release();
    await client?.end();
  });

  /** The same failing statement through TypeORM (wrapped) and through node-postgres (raw). */
  async function bothShapes(sql: string): Promise<Array<[string, unknown]>> {
    const wrapped = await rejection(runner.query(sql));
    const raw = await rejection(client.query(sql));
    expect(wrapped).to.be.instanceOf(QueryFailedError);
    expect(raw).to.not.be.instanceOf(QueryFailedError);
    return [
      ['QueryFailedError', wrapped],
      ['pg error', raw],
    ];
  }

  it('recognises a unique constraint, with and without its name, in both shapes', async () => {
    for (const [shape, error] of await bothShapes("INSERT INTO uv_widgets (id, code) VALUES (2, 'a')")) {
      expect((error as { code?: string }).code, shape).to.equal(UNIQUE_VIOLATION);
      expect(isUniqueViolation(error), shape).to.equal(true);
      expect(isUniqueViolation(error, 'uv_widgets_code'), shape).to.equal(true);
      expect(isUniqueViolation(error, 'uv_widgets_slug'), shape).to.equal(false);
      expect(isUniqueViolation(error, 'UV_WIDGETS_CODE'), `${shape}: names are exact`).to.equal(false);
    }
  });

  it('recognises a unique index (PostgreSQL names the index as the constraint) and a primary key', async () => {
    for (const [shape, error] of await bothShapes("INSERT INTO uv_widgets (id, code, slug) VALUES (3, 'c', 'LAMP')")) {
      expect(isUniqueViolation(error, 'uv_widgets_slug'), shape).to.equal(true);
      expect(isUniqueViolation(error, 'uv_widgets_code'), shape).to.equal(false);
    }
    for (const [shape, error] of await bothShapes("INSERT INTO uv_widgets (id, code) VALUES (1, 'd')")) {
      expect(isUniqueViolation(error, 'uv_widgets_pkey'), shape).to.equal(true);
    }
  });

  it('answers false for the other integrity errors and for what is not a database error', async () => {
    for (const sql of [
      "INSERT INTO uv_widgets (id, code, parent_id) VALUES (4, 'e', 99)", // 23503 foreign key
      'INSERT INTO uv_widgets (id, code) VALUES (5, NULL)', // 23502 not null
      "INSERT INTO uv_widgets (id, code) VALUES ('x', 'f')", // 22P02 invalid text
    ]) {
      for (const [shape, error] of await bothShapes(sql)) {
        expect(isUniqueViolation(error), `${shape}: ${sql}`).to.equal(false);
        expect(isUniqueViolation(error, 'uv_widgets_code'), `${shape}: ${sql}`).to.equal(false);
      }
    }
    for (const value of [undefined, null, '23505', 23505, new Error('duplicate key value violates unique constraint'), { code: 23505 }]) {
      expect(isUniqueViolation(value), String(value)).to.equal(false);
    }
  });

  it('is what the API translation answers 409 duplicate by, naming the constraint', async () => {
    const error = await rejection(runner.query("INSERT INTO uv_widgets (id, code) VALUES (6, 'a')"));
    const translated = translateDatabaseError(error);
    expect(translated?.status).to.equal(409);
    expect(translated?.code).to.equal('duplicate');
    expect(translated?.message).to.contain('uv_widgets_code');
  });
});
