/**
 * The configuration as an operator meets it: the defaults that make a fresh clone run against the
 * local services, every bad value stopped at start with a message that names the variable and says
 * how to fix it (all of them at once), and the process exiting 78 (EX_CONFIG) without a stack trace.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig, parseByteSize, PROJECT_ROOT } from '../../lib/config';

/** A master key and an app secret, so no test depends on the files under .data/ unless it means to. */
const KEY = 'k'.repeat(32);
const BASE: NodeJS.ProcessEnv = { MEILI_MASTER_KEY: KEY, APP_SECRET: 's'.repeat(32) };

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected loadConfig(${JSON.stringify(env)}) to throw`).to.be.instanceOf(ConfigError);
  const error = caught as ConfigError;
  expect(error.name).to.equal('ConfigError');
  // The message carries every problem, one per line.
  for (const problem of error.problems) expect(error.message).to.include(problem);
  return error.problems;
}

describe('configuration (loadConfig)', () => {
  describe('defaults', () => {
    it('points a development process at the local services with the documented defaults', () => {
      const config = loadConfig(BASE);
      expect(config).to.deep.include({
        nodeEnv: 'development',
        host: '0.0.0.0',
        port: 3000,
        logLevel: 'info',
        databaseUrl: 'postgres://postgres@127.0.0.1:55432/commerce',
        dbPoolSize: 10,
        runMigrationsAtStart: true,
        redisUrl: 'redis://127.0.0.1:56379',
        queuePrefix: 'bq',
        meiliUrl: 'http://127.0.0.1:57700',
        meiliMasterKey: KEY,
        bodyLimitJsonBytes: 1024 * 1024,
        bodyLimitCsvBytes: 64 * 1024 * 1024,
        bodyLimitFormBytes: 64 * 1024,
        outbox: { pollIntervalMs: 250, batchSize: 200, reclaimAfterMs: 60_000, retryBaseMs: 1_000, retryMaxMs: 300_000 },
        shutdownTimeoutMs: 10_000,
        roles: ['api', 'relay', 'indexer', 'vision', 'jobs'],
      });
    });

    it('uses the test database when NODE_ENV=test, and an explicit DATABASE_URL over either', () => {
      expect(loadConfig({ NODE_ENV: 'test', ...BASE }).databaseUrl).to.equal('postgres://postgres@127.0.0.1:55432/commerce_test');
      expect(loadConfig({ NODE_ENV: 'production', ...BASE }).databaseUrl).to.equal('postgres://postgres@127.0.0.1:55432/commerce');
      const explicit = 'postgresql://app:secret@db.internal:5432/shop';
      expect(loadConfig({ NODE_ENV: 'test', DATABASE_URL: explicit, ...BASE }).databaseUrl).to.equal(explicit);
    });

    it('moves the local service URLs with PG_PORT, REDIS_PORT and MEILI_PORT, as scripts/services does', () => {
      const config = loadConfig({ NODE_ENV: 'test', PG_PORT: '6543', REDIS_PORT: '6380', MEILI_PORT: '7701', ...BASE });
      expect(config.databaseUrl).to.equal('postgres://postgres@127.0.0.1:6543/commerce_test');
      expect(config.redisUrl).to.equal('redis://127.0.0.1:6380');
      expect(config.meiliUrl).to.equal('http://127.0.0.1:7701');
    });

    it('treats an empty variable as unset', () => {
      const config = loadConfig({ PORT: '', LOG_LEVEL: '', ROLES: '', QUEUE_PREFIX: '', ...BASE });
      expect(config.port).to.equal(3000);
      expect(config.logLevel).to.equal('info');
      expect(config.queuePrefix).to.equal('bq');
      expect(config.roles).to.deep.equal(['api', 'relay', 'indexer', 'vision', 'jobs']);
    });

    it('reads the values it is given, converted to their types', () => {
      const config = loadConfig({
        PORT: '8080',
        ROLES: 'indexer,api,indexer',
        BODY_LIMIT_JSON: '512kb',
        MIGRATIONS_RUN: '0',
        QUEUE_PREFIX: 'ci:run-7',
        OUTBOX_RETRY_BASE_MS: '500',
        OUTBOX_RETRY_MAX_MS: '500',
        ...BASE,
      });
      expect(config.port).to.equal(8080);
      expect(config.roles, 'a role listed twice runs once').to.deep.equal(['indexer', 'api']);
      expect(config.bodyLimitJsonBytes).to.equal(512 * 1024);
      expect(config.runMigrationsAtStart).to.equal(false);
      expect(config.queuePrefix).to.equal('ci:run-7');
      expect(config.outbox).to.include({ retryBaseMs: 500, retryMaxMs: 500 });
    });
  });

  describe('bad values', () => {
    const cases: Array<[string, string]> = [
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['PORT', '0'],
      ['DATABASE_URL', 'mysql://x'],
      ['REDIS_URL', 'http://x'],
      ['MEILI_URL', 'ftp://search.internal'],
      ['LOG_LEVEL', 'loud'],
      ['ROLES', 'api,web'],
      ['ROLES', 'api,'],
      ['BODY_LIMIT_JSON', '1tb'],
      ['BODY_LIMIT_CSV', '1.5mb'],
      ['NODE_ENV', 'staging'],
      ['DB_POOL_SIZE', '0'],
      ['QUEUE_PREFIX', 'has space'],
      ['OUTBOX_POLL_INTERVAL_MS', '5'],
      ['SHUTDOWN_TIMEOUT_MS', '1.5'],
      ['APP_SECRET', 'too-short'],
    ];
    for (const [name, value] of cases) {
      it(`${name}=${value} stops the start with a message naming ${name} and saying how to fix it`, () => {
        const problems = problemsOf({ ...BASE, [name]: value });
        expect(problems, problems.join('\n')).to.have.length(1);
        expect(problems[0]).to.match(new RegExp(`^${name}=`));
        // The value is echoed so the operator sees what was read, except secrets, which are never echoed.
        if (/SECRET|KEY/.test(name)) expect(problems[0]).to.include('=(hidden)').and.not.include(value);
        else expect(problems[0]).to.include(JSON.stringify(value));
        expect(problems[0]).to.include('fix:');
      });
    }

    it('OUTBOX_RETRY_MAX_MS below OUTBOX_RETRY_BASE_MS is refused, naming both', () => {
      const problems = problemsOf({ ...BASE, OUTBOX_RETRY_BASE_MS: '5000', OUTBOX_RETRY_MAX_MS: '4999' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^OUTBOX_RETRY_MAX_MS \(4999\) is below OUTBOX_RETRY_BASE_MS \(5000\)/);
      expect(problems[0]).to.include('fix:');
      // Against the default base of 1000 ms as well.
      expect(problemsOf({ ...BASE, OUTBOX_RETRY_MAX_MS: '999' })[0]).to.match(
        /^OUTBOX_RETRY_MAX_MS \(999\) is below OUTBOX_RETRY_BASE_MS \(1000\)/,
      );
    });

    it('reports every bad value at once, not only the first', () => {
      const problems = problemsOf({
        ...BASE,
        PORT: 'abc',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'http://x',
        LOG_LEVEL: 'loud',
        ROLES: 'api,web',
        BODY_LIMIT_JSON: '1tb',
      });
      expect(problems.map((p) => p.split('=')[0])).to.have.members([
        'PORT',
        'DATABASE_URL',
        'REDIS_URL',
        'LOG_LEVEL',
        'ROLES',
        'BODY_LIMIT_JSON',
      ]);
      for (const problem of problems) expect(problem).to.include('fix:');
    });

    it('production without APP_SECRET is refused, naming APP_SECRET (no secret is generated for it)', () => {
      const problems = problemsOf({ NODE_ENV: 'production', MEILI_MASTER_KEY: KEY });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^APP_SECRET is required in production/);
      expect(problems[0]).to.include('fix:');
    });

    it('MEILI_URL without MEILI_MASTER_KEY is refused, naming MEILI_MASTER_KEY (the local key file is not used for another server)', () => {
      const problems = problemsOf({ MEILI_URL: 'https://search.example.org', APP_SECRET: BASE.APP_SECRET });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^MEILI_MASTER_KEY is required when MEILI_URL/);
      expect(problems[0]).to.include('fix:');
      const withKey = loadConfig({ MEILI_URL: 'https://search.example.org', ...BASE });
      expect(withKey).to.include({ meiliUrl: 'https://search.example.org', meiliMasterKey: KEY });
    });

    it('MEILI_NODES lists named nodes, each with its own key or MEILI_MASTER_KEY; the first is also MEILI_URL', () => {
      const other = 'o'.repeat(32);
      const config = loadConfig({
        ...BASE,
        MEILI_NODES: ' main=http://10.0.0.5:7700 , eu-2=https://search-2.example.org ',
        MEILI_MASTER_KEY_EU_2: other,
      });
      expect(config.meiliNodes).to.deep.equal([
        { name: 'main', url: 'http://10.0.0.5:7700', masterKey: KEY },
        { name: 'eu-2', url: 'https://search-2.example.org', masterKey: other },
      ]);
      expect(config).to.include({ meiliUrl: 'http://10.0.0.5:7700', meiliMasterKey: KEY });
      // Without MEILI_NODES there is one node and no list.
      expect(loadConfig(BASE).meiliNodes).to.equal(undefined);
    });

    it('refuses a MEILI_NODES entry without a name, with a bad name or url, a name twice, or a node without a key', () => {
      const problems = problemsOf({
        APP_SECRET: BASE.APP_SECRET,
        MEILI_URL: 'https://search.example.org',
        MEILI_NODES: 'http://a:7700,Main=http://b:7700,ok=ftp://c,x=http://d:7700,x=http://e:7700,y=http://f:7700',
        MEILI_MASTER_KEY_X: KEY,
      });
      expect(problems.filter((p) => p.startsWith('MEILI_NODES entry'))).to.have.length(3);
      expect(problems.some((p) => p.includes('names the node x twice'))).to.equal(true);
      expect(problems.some((p) => p.startsWith('MEILI_MASTER_KEY_Y (or MEILI_MASTER_KEY) must be set'))).to.equal(true);
      expect(problems).to.have.length(5);
      for (const problem of problems) expect(problem).to.include('fix:');
    });

    it('MEILI_NODES_LOCAL=2 runs stores on the local Meilisearch and the one a port above it; ignored for a MEILI_URL server', () => {
      const config = loadConfig({ ...BASE, MEILI_NODES_LOCAL: '2', MEILI_PORT: '7800' });
      expect(config.meiliNodes).to.deep.equal([
        { name: 'main', url: 'http://127.0.0.1:7800', masterKey: KEY },
        { name: 'local-2', url: 'http://127.0.0.1:7801', masterKey: KEY },
      ]);
      expect(loadConfig({ ...BASE, MEILI_NODES_LOCAL: '2', MEILI_URL: 'https://search.example.org' }).meiliNodes).to.equal(undefined);
      expect(problemsOf({ ...BASE, MEILI_NODES_LOCAL: '5' })[0]).to.match(/^MEILI_NODES_LOCAL=/);
    });

    it('a MEILI_MASTER_KEY shorter than 16 characters is refused', () => {
      const problems = problemsOf({ ...BASE, MEILI_MASTER_KEY: 'x'.repeat(15) });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^MEILI_MASTER_KEY=/);
      expect(problems[0]).to.include('fix:');
      expect(loadConfig({ ...BASE, MEILI_MASTER_KEY: 'x'.repeat(16) }).meiliMasterKey).to.equal('x'.repeat(16));
    });
  });

  describe('parseByteSize', () => {
    it('reads bytes, kb, mb and gb in powers of 1024, in any case', () => {
      expect(parseByteSize('1mb')).to.equal(1_048_576);
      expect(parseByteSize('512kb')).to.equal(524_288);
      expect(parseByteSize('64mb')).to.equal(67_108_864);
      expect(parseByteSize('2GB')).to.equal(2_147_483_648);
      expect(parseByteSize('7b')).to.equal(7);
      expect(parseByteSize('1000')).to.equal(1000);
      expect(parseByteSize('0')).to.equal(0);
    });

    it('refuses anything else', () => {
      for (const bad of ['1tb', '1.5mb', '', 'mb', '-1mb', ' 1mb', '1 mb']) {
        expect(() => parseByteSize(bad), bad).to.throw(`not a size: ${bad}`);
      }
    });
  });

  describe('the process', () => {
    it('exits 78 (EX_CONFIG) on a bad value, naming the variable and the fix on stderr, without a stack trace', () => {
      const result = spawnSync(process.execPath, [path.join('dist', 'app', 'main.js')], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, PORT: 'abc' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.error, 'the process must exit on its own').to.equal(undefined);
      expect(result.status, result.stderr).to.equal(78);
      expect(result.stderr).to.include('Invalid configuration');
      expect(result.stderr).to.match(/^\s+- PORT="abc" is invalid .*fix: /m);
      expect(result.stderr).not.to.match(/^\s+at .+[(:]\d+/m);
      expect(result.stderr).not.to.match(/\.(js|ts):\d+/);
      expect(result.stdout).to.equal('');
    });
  });
});
