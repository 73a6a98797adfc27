/**
 * The public intake of client errors (docs/client-errors.md, "Intake"): a batch of at most 50
 * events from one page, limited per client address (429 with Retry-After above
 * CLIENT_ERROR_BATCHES_PER_MINUTE), tied to a store when the page names one (it must exist and not
 * be archived: 404 store_not_found), fingerprinted, and written in one transaction: the events, one
 * upsert per group, one per hourly count.
 */
import { storeNotFound } from '../../domain/store-access';
import { uuidv7 } from '../../storage/ids';
import { clientKey } from '../../storage/rate-limit';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { fingerprintOf } from './client-errors.fingerprint';
import type { ClientErrorBatchInput } from './client-errors.schemas';
import { INSERT_EVENTS, UPSERT_GROUPS, UPSERT_HOURLY } from './client-errors.sql';

/** The User-Agent kept with an event, at most this long. */
const USER_AGENT_MAX = 400;
/** Attempts of a batch that met a deadlock (two batches upserting the same new groups at once). */
const ATTEMPTS = 3;

export interface BatchOrigin {
  storeId: string | null;
  tenantId: string | null;
  userAgent: string | null;
}

/** POST /client-errors/events. */
export async function reportClientErrors(
  ctx: RequestContext,
  batch: ClientErrorBatchInput,
): Promise<{ accepted: number; fingerprints: string[] }> {
  const { rateLimiter, config } = servicesOf(ctx);
  await rateLimiter.hit(`client-errors:${clientKey(ctx.client?.ip)}`, {
    limit: config.clientErrors.batchesPerMinute,
    windowSeconds: 60,
  });
  let store: { id: string; tenant_id: string } | undefined;
  if (batch.storeId) {
    [store] = (await ctx.manager.query(`SELECT id, tenant_id FROM stores WHERE id = $1 AND status <> 'archived'`, [
      batch.storeId.toLowerCase(),
    ])) as Array<{ id: string; tenant_id: string }>;
    if (!store) throw storeNotFound();
  }
  const userAgent = ctx.client?.userAgent ? ctx.client.userAgent.slice(0, USER_AGENT_MAX) : null;
  return recordClientErrors(ctx, batch, { storeId: store?.id ?? null, tenantId: store?.tenant_id ?? null, userAgent });
}

/** Writes a validated batch received at `now` (a parameter so tests and the benchmark can place events in time). */
export async function recordClientErrors(
  ctx: RequestContext,
  batch: Pick<ClientErrorBatchInput, 'app' | 'events'>,
  origin: BatchOrigin,
  now: Date = new Date(),
): Promise<{ accepted: number; fingerprints: string[] }> {
  const events = batch.events.map((event) => ({ ...event, ...fingerprintOf(event), id: uuidv7() }));
  const column = <K extends keyof (typeof events)[number]>(key: K) => events.map((event) => event[key] ?? null);
  const nullIfEmpty = (values: Array<string | null | undefined>) => values.map((value) => value || null);
  const ids = column('id');
  const fingerprints = column('fingerprint');
  const levels = column('level');
  const kinds = column('kind');
  const messages = column('message');
  const stacks = nullIfEmpty(column('stack'));
  const urls = nullIfEmpty(column('url'));
  for (let attempt = 1; ; attempt += 1) {
    try {
      await inTransaction(ctx, async (tx) => {
        // Reports are telemetry: a crash may lose the last moment of them, never leave them half
        // written. Not waiting for the WAL flush keeps the hot groups' row locks short.
        await tx.manager.query(`SET LOCAL synchronous_commit TO off`);
        await tx.manager.query(INSERT_EVENTS, [
          ids,
          now,
          fingerprints,
          batch.app,
          levels,
          kinds,
          messages,
          stacks,
          urls,
          origin.userAgent,
          origin.storeId,
          origin.tenantId,
        ]);
        await tx.manager.query(UPSERT_GROUPS, [
          ids,
          now,
          fingerprints,
          batch.app,
          levels,
          kinds,
          messages,
          stacks,
          urls,
          column('title'),
          column('topFrame'),
          origin.storeId,
        ]);
        await tx.manager.query(UPSERT_HOURLY, [now, fingerprints, batch.app, levels, kinds]);
      });
      return { accepted: events.length, fingerprints: fingerprints as string[] };
    } catch (error) {
      if (attempt >= ATTEMPTS || !isDeadlock(error)) throw error;
    }
  }
}

function isDeadlock(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string } };
  return (e.driverError?.code ?? e.code) === '40P01';
}
