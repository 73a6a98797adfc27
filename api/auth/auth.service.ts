/**
 * Sign-up and sign-in: registration of merchant and partner accounts, login (with the two-factor
 * challenge when it is on), refresh-token rotation and logout. E-mail tokens (verification, reset)
 * are in email-tokens.service.ts; the signed-in user's sessions and profile in account.service.ts.
 */
import Joi from 'joi';
import { ConflictError, UnauthorizedError } from '../../lib/errors';
import { RefreshToken, Session, Tenant, User } from '../../storage/entities';
import type { TenantKind } from '../../storage/entities/tenant.entity';
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { commonPasswordCount, hashPassword, PASSWORD_RULES, verifyPassword } from './passwords';
import { openSession, revokeSession, rotateRefreshToken, type TokenPair } from './sessions';
import { sha256 } from './secrets';
import { acceptStoreInvitation } from '../crm/lead-invitations';
import { sendVerificationEmail } from './email-tokens.service';
import { actingAs, assertPasswordRules, clientIp, findUserByEmail, hitLimit, limitKey, userSummary, type UserSummary } from './accounts';
import { createTwoFactorChallenge } from './two-factor.service';
import { RegisterDto, RegisterPartnerDto } from './auth.schemas';
import { authError } from './auth.errors';
import type { InputOf } from '../http/typed-schema';

function tenantSummary(tenant: Tenant): { id: string; name: string; kind: TenantKind; website: string | null; createdAt: string } {
  return { id: tenant.id, name: tenant.name, kind: tenant.kind, website: tenant.website, createdAt: tenant.createdAt.toISOString() };
}

// ---------------------------------------------------------------------------------------------
// Public information

export function passwordRules(): typeof PASSWORD_RULES & { commonPasswordCount: number } {
  return { ...PASSWORD_RULES, commonPasswordCount: commonPasswordCount() };
}

interface RegistrationField {
  name: string;
  required: boolean;
  type: string;
  description?: string;
}

/** The fields of a DTO, read from its joi schema so the answer cannot drift from what is validated. */
function fieldsOf(schema: Joi.Schema): RegistrationField[] {
  const described = schema.describe() as {
    keys?: Record<string, { type: string; flags?: { presence?: string; description?: string }; rules?: Array<{ name: string }> }>;
  };
  return Object.entries(described.keys ?? {}).map(([name, field]) => {
    const isEmail = field.rules?.some((rule) => rule.name === 'email');
    const isUri = field.rules?.some((rule) => rule.name === 'uri');
    const out: RegistrationField = {
      name,
      required: field.flags?.presence === 'required',
      type: isEmail ? 'email' : isUri ? 'url' : name.toLowerCase().includes('password') ? 'password' : field.type,
    };
    if (field.flags?.description) out.description = field.flags.description;
    return out;
  });
}

export function registrationOptions(ctx: RequestContext) {
  return {
    open: servicesOf(ctx).config.auth.registrationOpen,
    kinds: [
      { kind: 'merchant' as const, path: '/api/v1/auth/register' },
      { kind: 'partner' as const, path: '/api/v1/auth/partner-register' },
    ],
    fields: fieldsOf(RegisterDto.schema),
    partnerFields: fieldsOf(RegisterPartnerDto.schema),
    passwordRules: '/api/v1/auth/password-rules',
    emailVerification: 'after_sign_up' as const,
  };
}

// ---------------------------------------------------------------------------------------------
// Registration

/** A partner's body; a merchant's is the same without website. */
/** A merchant's or a partner's registration (only a merchant's carries an invitation token). */
export type RegisterInput = InputOf<typeof RegisterPartnerDto> & { invitationToken?: string };

function emailTaken(): ConflictError {
  return authError('email_taken', 'An account with this e-mail address already exists; sign in or reset the password.', [
    { path: 'body.email', message: 'email is already registered' },
  ]);
}

/**
 * Creates a tenant and its owner in one transaction, with their audit entries, opens a first
 * session and sends the verification e-mail. A taken address answers 409 `email_taken`: sign-up must
 * tell a person that the address already has an account, and the per-address limit keeps that from
 * being used to test addresses in bulk. The owner is created after the tenant in the same
 * transaction, so a registration that fails there (a taken address, found first or by the unique
 * index users_email in a race) rolls back the tenant and every audit entry with it.
 */
export async function register(ctx: RequestContext, input: RegisterInput, kind: 'merchant' | 'partner') {
  const { config } = servicesOf(ctx);
  if (!config.auth.registrationOpen) throw authError('registration_closed', 'Self-registration is closed on this platform.');
  await hitLimit(ctx, 'registerPerIp', clientIp(ctx));
  assertPasswordRules(input.password, input.email, 'body.password');
  const passwordHash = await hashPassword(input.password);
  try {
    return await inTransaction(ctx, async (tx) => {
      const tenant = tx.manager.create(Tenant, { id: uuidv7(), name: input.companyName, kind, website: input.website ?? null });
      await tx.manager.insert(Tenant, tenant);
      const user = tx.manager.create(User, {
        id: uuidv7(),
        tenantId: tenant.id,
        tenantRole: 'owner',
        platformRole: null,
        email: input.email,
        passwordHash,
        name: input.name,
        locale: input.locale ?? null,
      });
      const self = actingAs(tx, user);
      await recordAudit(self, {
        action: 'tenant.create',
        resourceType: 'tenant',
        resourceId: tenant.id,
        after: { name: tenant.name, kind, website: tenant.website },
      });
      // Checked here so the usual case does not fail a query; the unique index still decides races.
      if (await findUserByEmail(tx, user.email)) throw emailTaken();
      await tx.manager.insert(User, user);
      if (input.invitationToken) await acceptStoreInvitation(self, input.invitationToken, tenant.id);
      await recordAudit(self, {
        action: 'user.register',
        resourceType: 'user',
        resourceId: user.id,
        after: { email: user.email, name: user.name, locale: user.locale, tenantId: tenant.id, tenantRole: 'owner' },
      });
      const tokens = await openSession(self, user, 'password');
      await recordAudit(self, {
        action: 'session.create',
        resourceType: 'session',
        resourceId: tokens.sessionId,
        after: { method: 'password', ip: tx.client?.ip ?? null },
      });
      await sendVerificationEmail(self, user);
      const [savedUser, savedTenant] = await Promise.all([
        tx.manager.findOneByOrFail(User, { id: user.id }),
        tx.manager.findOneByOrFail(Tenant, { id: tenant.id }),
      ]);
      return { ...tokens, user: userSummary(savedUser), tenant: tenantSummary(savedTenant) };
    });
  } catch (error) {
    throw isUniqueViolation(error, 'users_email') ? emailTaken() : error;
  }
}

// ---------------------------------------------------------------------------------------------
// Sign-in

export type LoginResult = (TokenPair & { user: UserSummary }) | { twoFactorRequired: true; challengeToken: string; expiresIn: number };

const INVALID_CREDENTIALS = () => authError('invalid_credentials', 'The e-mail address or the password is wrong.');

/**
 * Unknown addresses and wrong passwords answer alike (same status, code, body and time: an unknown
 * address still pays for a password verification). With two-factor on, no tokens are issued: the
 * answer is a challenge to complete with POST /auth/2fa/challenge.
 */
export async function login(ctx: RequestContext, input: { email: string; password: string }): Promise<LoginResult> {
  const ip = clientIp(ctx);
  await hitLimit(ctx, 'loginPerIp', ip);
  await hitLimit(ctx, 'loginPerIpAndEmail', `${ip}|${input.email}`);
  const user = await findUserByEmail(ctx, input.email);
  const valid = await verifyPassword(user?.passwordHash, input.password);
  if (!user || !valid) throw INVALID_CREDENTIALS();
  await servicesOf(ctx).rateLimiter.reset(limitKey('loginPerIpAndEmail', `${ip}|${input.email}`));
  if (user.totpEnabledAt) {
    const challenge = await createTwoFactorChallenge(ctx, user);
    return { twoFactorRequired: true, challengeToken: challenge.challengeToken, expiresIn: challenge.expiresIn };
  }
  return inTransaction(ctx, async (tx) => {
    const self = actingAs(tx, user);
    const tokens = await openSession(self, user, 'password');
    await recordAudit(self, {
      action: 'session.create',
      resourceType: 'session',
      resourceId: tokens.sessionId,
      after: { method: 'password', ip: tx.client?.ip ?? null },
    });
    return { ...tokens, user: userSummary(user) };
  });
}

/** The session a refresh token belongs to, whatever the token's state. */
async function sessionOfRefreshToken(ctx: RequestContext, presented: string): Promise<Session | null> {
  const row = await ctx.manager.findOneBy(RefreshToken, { tokenHash: sha256(presented) });
  return row ? ctx.manager.findOneBy(Session, { id: row.sessionId }) : null;
}

/**
 * Rotates the refresh token. A reused one revokes its session; that revocation (and its audit
 * entry) is committed before the 401 is answered. Plain rotations are not audited: they change no
 * resource, only the credential of a session whose creation and end are.
 */
export async function refresh(ctx: RequestContext, presented: string): Promise<TokenPair> {
  const outcome = await inTransaction(ctx, async (tx): Promise<{ pair: TokenPair } | { failure: UnauthorizedError }> => {
    try {
      return { pair: await rotateRefreshToken(tx, presented) };
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || error.code !== 'refresh_token_reused') throw error;
      const session = await sessionOfRefreshToken(tx, presented);
      if (session) {
        const user = await tx.manager.findOneBy(User, { id: session.userId });
        const self = user ? actingAs(tx, user) : tx;
        await recordAudit(self, {
          action: 'session.revoke',
          resourceType: 'session',
          resourceId: session.id,
          after: { reason: 'refresh_token_reuse' },
          tenantId: session.tenantId,
        });
        servicesOf(tx).logger.warn(
          { sessionId: session.id, userId: session.userId, ip: tx.client?.ip },
          'auth: a used refresh token was presented again; its session (the whole refresh family) is revoked',
        );
      }
      return { failure: error };
    }
  });
  if ('failure' in outcome) throw outcome.failure;
  return outcome.pair;
}

/** Revokes the session of the refresh token. Unknown, used or already revoked tokens answer the same (204). */
export async function logout(ctx: RequestContext, presented: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const session = await sessionOfRefreshToken(tx, presented);
    if (!session) return;
    if (!(await revokeSession(tx, session.id, 'logout'))) return;
    const user = await tx.manager.findOneBy(User, { id: session.userId });
    const self = user ? actingAs(tx, user, session.id) : tx;
    await recordAudit(self, {
      action: 'session.revoke',
      resourceType: 'session',
      resourceId: session.id,
      after: { reason: 'logout' },
      tenantId: session.tenantId,
    });
  });
}
