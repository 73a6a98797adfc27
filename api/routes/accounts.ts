/** Accounts and access: authentication and sessions, organization, API keys, the audit log and the jobs console. */
import type { RouteDef } from '../http/route';
import { jobsRoutes } from '../jobs/jobs.routes';
import { apiKeyRoutes } from '../api-keys/api-keys.routes';
import { auditLogRoutes } from '../audit-log/audit-log.routes';
import { authRoutes } from '../auth/auth.routes';
import { authSecondFactorRoutes } from '../auth/auth-second-factor.routes';
import { organizationRoutes } from '../organization/organization.routes';

export const accountRoutes: RouteDef[] = [
  // Jobs console (platform admins)
  ...jobsRoutes,
  // API keys and audit log
  ...apiKeyRoutes,
  ...auditLogRoutes,
  // Authentication, sessions, command line device flow, account
  ...authRoutes,
  ...authSecondFactorRoutes,
  // Organization: tenant, members, stores
  ...organizationRoutes,
];
