/**
 * The first platform admin, created by the operator command: it can sign in, its account carries the
 * platform role, and running the command again for the same address promotes instead of duplicating.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../lib/config';
import { call, startTestServer, type TestServer } from '../helpers/harness';
import { bearer, signIn, uniqueEmail } from '../helpers/accounts';

function createAdmin(email: string, env: Record<string, string> = {}, args: string[] = []) {
  return spawnSync(
    process.execPath,
    [path.join(PROJECT_ROOT, 'dist', 'scripts', 'create-platform-admin.js'), '--email', email, '--name', 'Ops Lead', ...args],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NODE_ENV: 'test', ...env },
      encoding: 'utf8',
    },
  );
}

describe('create-platform-admin command', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('creates a platform admin who can sign in, with a generated password shown once', async () => {
    const email = uniqueEmail('ops');
    const result = createAdmin(email);
    expect(result.status, result.stderr).to.equal(0);
    const password = /password \(shown once\): (\S+)/.exec(result.stdout)?.[1];
    expect(password).to.be.a('string');
    const tokens = await signIn(server, email, password!);
    const account = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(tokens.accessToken) });
    expect(account.status).to.equal(200);
    expect(account.json.platformRole).to.equal('platform_admin');
  });

  it('promotes an existing user instead of creating a second one, and refuses a weak PLATFORM_ADMIN_PASSWORD', async () => {
    const email = uniqueEmail('ops');
    expect(createAdmin(email, { PLATFORM_ADMIN_PASSWORD: 'Another-Strong-Pass-7' }).status).to.equal(0);
    const again = createAdmin(email);
    expect(again.status).to.equal(0);
    expect(again.stdout).to.match(/is now a platform admin \(password unchanged\)/);
    const rows: unknown[] = await server.runtime.dataSource.query('SELECT id FROM users WHERE lower(email) = $1', [email]);
    expect(rows).to.have.length(1);
    const weak = createAdmin(uniqueEmail('ops'), { PLATFORM_ADMIN_PASSWORD: 'password123' });
    expect(weak.status).to.equal(65);
    expect(weak.stderr).to.match(/PLATFORM_ADMIN_PASSWORD is not acceptable/);
  });

  it('creates or promotes sales reps and support agents with --role', async () => {
    const email = uniqueEmail('rep');
    const created = createAdmin(email, { PLATFORM_ADMIN_PASSWORD: 'Sales-Rep-Strong-Pass-7' }, ['--role', 'sales_rep']);
    expect(created.status, created.stderr).to.equal(0);
    expect(created.stdout).to.match(/created sales rep/);
    const tokens = await signIn(server, email, 'Sales-Rep-Strong-Pass-7');
    const account = await call(server, 'GET', '/api/v1/auth/account', { headers: bearer(tokens.accessToken) });
    expect(account.json.platformRole).to.equal('sales_rep');
    const promoted = createAdmin(email, {}, ['--role', 'support_agent']);
    expect(promoted.stdout).to.match(/is now a support agent/);
    const [row] = await server.runtime.dataSource.query('SELECT platform_role FROM users WHERE lower(email) = $1', [email]);
    expect(row.platform_role).to.equal('support_agent');
  });

  it('refuses a missing or malformed e-mail, or an unknown role, with usage (exit 64)', () => {
    const result = createAdmin('not-an-email');
    expect(result.status).to.equal(64);
    expect(result.stderr).to.match(/usage: npm run create-platform-admin/);
    const role = createAdmin(uniqueEmail('x'), {}, ['--role', 'owner']);
    expect(role.status).to.equal(64);
    expect(role.stderr).to.match(/--role platform_admin\|sales_rep\|support_agent/);
  });
});
