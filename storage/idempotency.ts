/**
 * Idempotency keys (docs/payments.md, "Idempotency"): a client that retries a write with the same
 * `Idempotency-Key` gets the result of the first attempt instead of a second payment.
 *
 * `idempotent(ctx, scope, key, fingerprint, work)`:
 * - without a key, runs `work` in a transaction (or in the caller's);
 * - with a key (per tenant and scope), the first request claims it and runs `work`; its result is
 *   stored as JSON in the same transaction as the work's rows, so both commit or neither does. A
 *   later request with the same key and the same fingerprint (a hash of the canonical JSON of what
 *   the caller passes: normally the body and the path ids) gets the stored result back, parsed
 *   from JSON (Dates come back as ISO strings, exactly as a client saw them); another fingerprint
 *   answers 409 `idempotency_key_reused`.
 * - Duplicates that arrive while the first runs wait for it: in this process on its promise, across
 *   processes by polling the row. Exactly one `work` runs, however many duplicates arrive at once;
 *   waiting holds no database connection, so thousands of duplicates cannot starve the pool.
 * - When `work` throws, the claim is removed and the error goes to the caller; a retry with the same
 *   key runs again (nothing was committed).
 * - A claim whose process died is taken over after CLAIM_SECONDS; the takeover is safe because the
 *   first owner's final write checks it still owns the claim, and rolls its work back otherwise.
 * - Keys are kept KEY_TTL_HOURS (24 h) after their first use; an expired key is claimed afresh, and
 *   expired rows are purged now and then by the claims themselves.
 */
import { createHash, randomUUID } from 'node:crypto';
import { inTransaction, type RequestContext } from './request-context';

export { IDEMPOTENCY_ERRORS, idempotencyError } from './idempotency.errors';
import { idempotencyError } from './idempotency.errors';

/** 1 to 255 printable ASCII characters (space to tilde). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/** How long a key is remembered. */
export const KEY_TTL_HOURS = 24;
/** How long a claim may run before another process may take it over. */
export const CLAIM_SECONDS = 60;
const NO_TENANT = '00000000-0000-0000-0000-000000000000';

/** JSON with object keys sorted, so the same value always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** Claims running in this process: duplicates wait on them without touching the database. */
const running = new Map<string, { fingerprint: string; done: Promise<{ ok: true; json: string } | { ok: false }> }>();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function reused(): Error {
  return idempotencyError('idempotency_key_reused', 'This Idempotency-Key was already used for a different request.');
}

export async function idempotent<T>(
  ctx: RequestContext,
  scope: string,
  key: string | undefined,
  fingerprint: unknown,
  work: (tx: RequestContext) => Promise<T>,
): Promise<T> {
  if (key === undefined) return inTransaction(ctx, work);
  const tenantId = ctx.tenantId ?? NO_TENANT;
  const hash = fingerprintOf(fingerprint);
  const localKey = `${tenantId}\u0000${scope}\u0000${key}`;
  // A claim still open in the caller's transaction is only visible there.
  const db = ctx.inTransaction ? ctx.manager : ctx.dataSource.manager;

  for (let attempt = 0; ; attempt += 1) {
    const local = running.get(localKey);
    if (local) {
      if (local.fingerprint !== hash) throw reused();
      const outcome = await local.done;
      if (outcome.ok) return JSON.parse(outcome.json) as T;
      await sleep(1); // the first attempt failed: claim afresh once its claim row is gone (yielding to its I/O)
      continue;
    }

    const owner = randomUUID();
    const claimed = (await db.query(
      `INSERT INTO idempotency_keys (tenant_id, scope, key, fingerprint, owner, state, locked_until, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'running', now() + make_interval(secs => $6), now() + make_interval(hours => $7))
       ON CONFLICT (tenant_id, scope, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, owner = EXCLUDED.owner, state = 'running', result = NULL,
             locked_until = EXCLUDED.locked_until, created_at = now(), expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at < now()
            OR (idempotency_keys.state = 'running' AND idempotency_keys.locked_until < now()
                AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
       RETURNING owner`,
      [tenantId, scope, key, hash, owner, CLAIM_SECONDS, KEY_TTL_HOURS],
    )) as Array<{ owner: string }>;

    if (claimed[0]?.owner === owner) {
      let settle!: (outcome: { ok: true; json: string } | { ok: false }) => void;
      const mine = { fingerprint: hash, done: new Promise<{ ok: true; json: string } | { ok: false }>((resolve) => (settle = resolve)) };
      running.set(localKey, mine);
      // Only this claim's own entry is removed: another request may have claimed the key since.
      const release = (): void => {
        if (running.get(localKey) === mine) running.delete(localKey);
      };
      try {
        const result = await inTransaction(ctx, async (tx) => {
          const value = await work(tx);
          const json = JSON.stringify(value ?? null);
          const stored = (await tx.manager.query(
            `UPDATE idempotency_keys SET state = 'done', result = $5, locked_until = NULL
              WHERE tenant_id = $1 AND scope = $2 AND key = $3 AND owner = $4 RETURNING 1`,
            [tenantId, scope, key, owner, json],
          )) as unknown[];
          if (stored.length === 0) throw new Error(`idempotency key of ${scope} was taken over while its work ran`);
          return { value, json };
        });
        settle({ ok: true, json: result.json });
        if (Math.random() < 0.001) void purgeExpiredIdempotencyKeys(ctx).catch(() => undefined);
        return result.value;
      } catch (error) {
        // Out of the map before the waiters wake: one that found the claim failed must not find it
        // again and spin on the settled promise while the DELETE below waits for its I/O.
        release();
        settle({ ok: false });
        await db
          .query(`DELETE FROM idempotency_keys WHERE tenant_id = $1 AND scope = $2 AND key = $3 AND owner = $4`, [
            tenantId,
            scope,
            key,
            owner,
          ])
          .catch(() => undefined);
        throw error;
      } finally {
        release();
      }
    }

    const rows = (await db.query(
      `SELECT fingerprint, state, result FROM idempotency_keys WHERE tenant_id = $1 AND scope = $2 AND key = $3`,
      [tenantId, scope, key],
    )) as Array<{ fingerprint: string; state: string; result: string | null }>;
    const row = rows[0];
    if (!row) continue; // removed after a failed attempt: claim again
    if (row.fingerprint !== hash) throw reused();
    if (row.state === 'done') return JSON.parse(row.result ?? 'null') as T;
    // Running in another process: wait for it (backing off up to a quarter of a second).
    await sleep(Math.min(250, 10 * 2 ** Math.min(attempt, 5)));
  }
}

/** Removes keys expired for more than an hour (at most `limit` at a time); answers how many. */
export async function purgeExpiredIdempotencyKeys(ctx: Pick<RequestContext, 'dataSource'>, limit = 1000): Promise<number> {
  const rows = (await ctx.dataSource.query(
    `DELETE FROM idempotency_keys WHERE ctid IN (
       SELECT ctid FROM idempotency_keys WHERE expires_at < now() - interval '1 hour' LIMIT $1) RETURNING 1`,
    [limit],
  )) as unknown[];
  return rows.length;
}
