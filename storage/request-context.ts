/**
 * The request context every service takes first (after Vendure's RequestContext): who is calling,
 * for which tenant, and the EntityManager to use, which is a transaction's manager inside
 * inTransaction(). Workers build one for the tenant of the job they process.
 */
import type { DataSource, EntityManager } from 'typeorm';

export type ActorType = 'anonymous' | 'user' | 'api_key' | 'system';

export interface Actor {
  type: ActorType;
  /** User id, API key id, or the worker name for system actors. */
  id?: string;
  /** Permission names granted to this actor (filled in by authentication). */
  permissions?: readonly string[];
  /** Platform staff may act across tenants on platform routes only. */
  platformStaff?: boolean;
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
}

export function systemContext(dataSource: DataSource, requestId: string, tenantId?: string, worker = 'system'): RequestContext {
  return { requestId, tenantId, actor: { type: 'system', id: worker }, dataSource, manager: dataSource.manager, inTransaction: false };
}

/**
 * Runs `work` in one database transaction (or inside the caller's, when already in one), so the
 * rows a service writes and the outbox rows describing them commit or roll back together.
 */
export async function inTransaction<T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return work(ctx);
  return ctx.dataSource.transaction((manager) => work({ ...ctx, manager, inTransaction: true }));
}
