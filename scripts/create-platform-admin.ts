/**
 * Creates (or promotes) platform staff, the first platform administrator to begin with:
 *   npm run create-platform-admin -- --email ops@example.org --name "Ops Lead"
 *   npm run create-platform-admin -- --email rep@example.org --role sales_rep
 * `--role` is platform_admin (default), sales_rep or support_agent (docs/back-office.md). The
 * password comes from PLATFORM_ADMIN_PASSWORD, or a strong one is generated and printed once. An
 * existing user with that e-mail is given the role instead (password unchanged).
 */
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadConfigOrExit } from '../lib/config';
import { hashPassword, passwordProblems } from '../api/auth/passwords';
import { createDataSource } from '../storage/data-source';
import { runMigrations } from '../storage/migrate';
import { User } from '../storage/entities';
import type { PlatformRole } from '../storage/entities/user.entity';
import { uuidv7 } from '../storage/ids';
import { inTransaction, systemContext } from '../storage/request-context';
import { recordAudit } from '../storage/audit';

const PLATFORM_ROLES: readonly PlatformRole[] = ['platform_admin', 'sales_rep', 'support_agent'];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string', default: 'platform_admin' } },
  });
  const email = values.email?.trim().toLowerCase();
  const role = values.role as PlatformRole;
  if (!email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || !PLATFORM_ROLES.includes(role)) {
    process.stderr.write(
      `usage: npm run create-platform-admin -- --email <address> [--name <name>] [--role ${PLATFORM_ROLES.join('|')}]\n`,
    );
    process.exit(64);
  }
  const label = role.replace('_', ' ');
  const config = loadConfigOrExit();
  const dataSource = await createDataSource(config, 'commerce-admin').initialize();
  try {
    await runMigrations(dataSource);
    const ctx = systemContext(dataSource, `cli-${uuidv7()}`, undefined, 'create-platform-admin');
    const generated = !process.env.PLATFORM_ADMIN_PASSWORD;
    // Generated: 24 random bytes in base64url always hold upper, lower and digits in practice; re-draw if not.
    let password = process.env.PLATFORM_ADMIN_PASSWORD ?? '';
    while (generated && passwordProblems(password, email).length > 0) password = randomBytes(24).toString('base64url');
    const problems = passwordProblems(password, email);
    if (problems.length) {
      process.stderr.write(`PLATFORM_ADMIN_PASSWORD is not acceptable: ${problems.map((p) => p.message).join('; ')}\n`);
      process.exit(65);
    }
    const outcome = await inTransaction(ctx, async (tx) => {
      const existing = await tx.manager.getRepository(User).createQueryBuilder('u').where('lower(u.email) = :email', { email }).getOne();
      if (existing) {
        await tx.manager.update(User, { id: existing.id }, { platformRole: role, updatedAt: new Date() });
        await recordAudit(tx, {
          action: 'user.grant_platform_role',
          resourceType: 'user',
          resourceId: existing.id,
          tenantId: existing.tenantId,
          before: { platformRole: existing.platformRole },
          after: { platformRole: role },
        });
        return 'promoted' as const;
      }
      const id = uuidv7();
      await tx.manager.insert(User, {
        id,
        email,
        name: values.name ?? (role === 'platform_admin' ? 'Platform admin' : `A ${label}`),
        passwordHash: await hashPassword(password),
        platformRole: role,
        tenantId: null,
        tenantRole: null,
        emailVerifiedAt: new Date(),
      });
      await recordAudit(tx, {
        action: role === 'platform_admin' ? 'user.create_platform_admin' : 'user.create_platform_staff',
        resourceType: 'user',
        resourceId: id,
        tenantId: null,
        after: { email, platformRole: role },
      });
      return 'created' as const;
    });
    if (outcome === 'promoted') process.stdout.write(`${email} is now a ${label} (password unchanged)\n`);
    else process.stdout.write(`created ${label} ${email}${generated ? `\npassword (shown once): ${password}` : ''}\n`);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`create-platform-admin failed: ${(error as Error).message}\n`);
  process.exit(1);
});
