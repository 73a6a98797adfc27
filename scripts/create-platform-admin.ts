/**
 * Creates (or promotes) the first platform administrator:
 *   npm run create-platform-admin -- --email ops@example.org --name "Ops Lead"
 * The password comes from PLATFORM_ADMIN_PASSWORD, or a strong one is generated and printed once.
 * An existing user with that e-mail is given the platform_admin role instead (password unchanged).
 */
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadConfigOrExit } from '../lib/config';
import { hashPassword, passwordProblems } from '../api/auth/passwords';
import { createDataSource } from '../storage/data-source';
import { runMigrations } from '../storage/migrate';
import { User } from '../storage/entities';
import { uuidv7 } from '../storage/ids';
import { inTransaction, systemContext } from '../storage/request-context';
import { recordAudit } from '../storage/audit';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string', default: 'Platform admin' } } });
  const email = values.email?.trim().toLowerCase();
  if (!email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
    process.stderr.write('usage: npm run create-platform-admin -- --email <address> [--name <name>]\n');
    process.exit(64);
  }
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
        await tx.manager.update(User, { id: existing.id }, { platformRole: 'platform_admin', updatedAt: new Date() });
        await recordAudit(tx, {
          action: 'user.grant_platform_role',
          resourceType: 'user',
          resourceId: existing.id,
          tenantId: existing.tenantId,
          before: { platformRole: existing.platformRole },
          after: { platformRole: 'platform_admin' },
        });
        return 'promoted' as const;
      }
      const id = uuidv7();
      await tx.manager.insert(User, {
        id,
        email,
        name: values.name!,
        passwordHash: await hashPassword(password),
        platformRole: 'platform_admin',
        tenantId: null,
        tenantRole: null,
        emailVerifiedAt: new Date(),
      });
      await recordAudit(tx, {
        action: 'user.create_platform_admin',
        resourceType: 'user',
        resourceId: id,
        tenantId: null,
        after: { email, platformRole: 'platform_admin' },
      });
      return 'created' as const;
    });
    if (outcome === 'promoted') process.stdout.write(`${email} is now a platform admin (password unchanged)\n`);
    else process.stdout.write(`created platform admin ${email}${generated ? `\npassword (shown once): ${password}` : ''}\n`);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`create-platform-admin failed: ${(error as Error).message}\n`);
  process.exit(1);
});
