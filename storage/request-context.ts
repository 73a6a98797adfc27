/**
 * The request context every service takes first (after Vendure's RequestContext): who is calling,
 * for which tenant, and the EntityManager to use, which is a transaction's manager inside
 * inTransaction(). Workers build one for the tenant of the job they process.
 */
import type { LocalRateLimiter } from '../lib/local-rate-limit';
import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import type { Config } from '../lib/config';
import type { RateLimiter } from './rate-limit';
import type { OutboundMessages } from './outbound-messages';
import type { QueueRegistry } from './queues';

export type ActorType = 'anonymous' | 'user' | 'api_key' | 'system';

export interface Actor {
  type: ActorType;
  /** User id, API key id, or the worker name for system actors. */
  id?: string;
  /** Users: the session of the access token. */
  sessionId?: string;
  /** Users: role in their tenant (owner, admin, staff). */
  tenantRole?: 'owner' | 'admin' | 'staff';
  /** Users: platform role, for the platform-wide routes. */
  platformRole?: 'platform_admin' | 'support_agent' | 'sales_rep';
  /** API keys: the one store the key may act on, and its scopes. */
  storeId?: string;
  scopes?: readonly string[];
}

/**
 * Process-wide services a request may need (configuration, rate limits, outgoing messages, the
 * queue producers). A layer above storage adds its own service by augmenting this interface where
 * that service is defined (search/public-search.ts adds `search`, search/meili.ts and
 * search/search-transport.ts the Meilisearch clients), so storage never imports upwards. Only the
 * composition root (app/runtime.ts) builds them: one set of connections per process.
 */
export interface ContextServices {
  config: Config;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** Per-process limits for hot paths (public search and suggest), without a Redis round trip. */
  localRateLimiter: LocalRateLimiter;
  outbound: OutboundMessages;
  /** The process's queue producers (the jobs console reads and acts on them). */
  queues: QueueRegistry;
}

export interface RequestContext {
  requestId: string;
  /** The caller's tenant; undefined for anonymous callers of public routes and for platform jobs. */
  tenantId?: string;
  actor: Actor;
  /** The data source of this process, to open transactions. */
  dataSource: DataSource;
  /** The manager to run queries with: the data source's own, or the current transaction's. */
  manager: EntityManager;
  /** True when `manager` belongs to an open transaction. */
  inTransaction: boolean;
  /** Where the request came from, for sessions and the audit log. */
  client?: { ip?: string; userAgent?: string };
  /** Absent only in contexts built for storage-level tests. */
  services?: ContextServices;
}

export function servicesOf(ctx: RequestContext): ContextServices {
  if (!ctx.services) throw new Error('this operation needs the process services in its request context');
  return ctx.services;
}

export function systemContext(
  dataSource: DataSource,
  requestId: string,
  tenantId?: string,
  worker = 'system',
  services?: ContextServices,
): RequestContext {
  return {
    requestId,
    tenantId,
    actor: { type: 'system', id: worker },
    dataSource,
    manager: dataSource.manager,
    inTransaction: false,
    services,
  };
}

/**
 * Runs `work` in one database transaction (or inside the caller's, when already in one), so the
 * rows a service writes and the outbox rows describing them commit or roll back together.
 */
export async function inTransaction<T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return work(ctx);
  return ctx.dataSource.transaction((manager) => work({ ...ctx, manager, inTransaction: true }));
}
