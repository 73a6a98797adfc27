/**
 * Platform incidents (docs/support.md, "Incidents"). An incident comes to exist when platform staff
 * link tickets to a new one (POST /support/tickets/link-incident with `incident`); the merchants it
 * affects are the tenants of its linked tickets. A broadcast posts an update and tells every affected
 * merchant once: one in-app notification and one e-mail to each owner, recorded per (update, tenant)
 * so a retry with the same idempotencyKey reaches only merchants it has not reached yet.
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { notifyTenant } from '../../storage/notifications';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import type { IncidentStatus } from '../../storage/entities/support-incident.entity';
import type { InputOf } from '../http/typed-schema';
import { supportError } from './support.errors';
import { supportNow, supportView, type SupportView } from './support-access';
import { incidentSelect } from './incidents.sql';
import { Params } from './tickets.sql';
import type { IncidentBroadcastDto, LinkTicketsIncidentDto } from './incidents.schemas';

export type LinkTicketsIncidentInput = InputOf<typeof LinkTicketsIncidentDto>;
export type IncidentBroadcastInput = InputOf<typeof IncidentBroadcastDto>;

interface IncidentRow {
  id: string;
  title: string;
  status: IncidentStatus;
  severity: string;
  started_at: Date;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
  linked_ticket_count: number;
  affected_merchant_count: number | null;
}

export interface IncidentView {
  id: string;
  title: string;
  status: IncidentStatus;
  severity: string;
  startedAt: string;
  resolvedAt: string | null;
  createdAt: string;
  updatedAt: string;
  linkedTicketCount: number;
  affectedMerchantCount: number | null;
}

export interface IncidentUpdateView {
  id: string;
  message: string;
  status: IncidentStatus;
  createdAt: string;
}

const PLATFORM: SupportView = { kind: 'platform' };
const notFound = () => supportError('incident_not_found', 'The incident does not exist.');

function incidentView(row: IncidentRow): IncidentView {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    severity: row.severity,
    startedAt: row.started_at.toISOString(),
    resolvedAt: row.resolved_at ? row.resolved_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    linkedTicketCount: row.linked_ticket_count,
    affectedMerchantCount: row.affected_merchant_count,
  };
}

async function selectIncidents(ctx: RequestContext, view: SupportView, extra: (p: Params) => string[], tail = '', limit?: number) {
  const p = new Params();
  const { columns, where } = incidentSelect(view, p);
  const all = [...where, ...extra(p)];
  const rows: IncidentRow[] = await ctx.manager.query(
    `SELECT ${columns} FROM support_incidents i ${all.length ? `WHERE ${all.join(' AND ')}` : ''} ${tail}${limit ? ` LIMIT ${p.add(limit)}` : ''}`,
    p.values,
  );
  return rows;
}

/** Incidents, newest first (ids are UUIDv7); a merchant sees those linked to a ticket of theirs. */
export async function listIncidents(
  ctx: RequestContext,
  query: { cursor?: string; limit: number },
): Promise<{ items: IncidentView[]; nextCursor: string | null }> {
  const rows = await selectIncidents(
    ctx,
    supportView(ctx),
    (p) => (query.cursor ? [`i.id < ${p.add(query.cursor)}`] : []),
    'ORDER BY i.id DESC',
    query.limit + 1,
  );
  const items = rows.slice(0, query.limit).map(incidentView);
  return { items, nextCursor: rows.length > query.limit ? items[items.length - 1]!.id : null };
}

async function incidentIn(ctx: RequestContext, id: string, view: SupportView): Promise<IncidentView & { updates: IncidentUpdateView[] }> {
  const [row] = await selectIncidents(ctx, view, (p) => [`i.id = ${p.add(id)}`]);
  if (!row) throw notFound();
  const updates: Array<{ id: string; message: string; status: IncidentStatus; created_at: Date }> = await ctx.manager.query(
    'SELECT id, message, status, created_at FROM incident_updates WHERE incident_id = $1 ORDER BY created_at, id',
    [id],
  );
  return {
    ...incidentView(row),
    updates: updates.map((u) => ({ id: u.id, message: u.message, status: u.status, createdAt: u.created_at.toISOString() })),
  };
}

export function getIncident(ctx: RequestContext, id: string): Promise<IncidentView & { updates: IncidentUpdateView[] }> {
  return incidentIn(ctx, id, supportView(ctx));
}

/** Links tickets (of any tenant) to an existing incident, or to a new one this request creates. */
export async function linkTicketsToIncident(ctx: RequestContext, body: LinkTicketsIncidentInput) {
  return inTransaction(ctx, async (tx) => {
    const now = supportNow(tx);
    let incidentId = body.incidentId;
    const created = incidentId === undefined;
    if (incidentId === undefined) {
      const incident = body.incident!;
      incidentId = uuidv7();
      await tx.manager.query(
        `INSERT INTO support_incidents (id, title, status, severity, created_by_user_id, started_at, resolved_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $6, $6)`,
        [
          incidentId,
          incident.title,
          incident.status,
          incident.severity,
          tx.actor.id ?? null,
          now,
          incident.status === 'RESOLVED' ? now : null,
        ],
      );
      await recordAudit(tx, {
        action: 'support_incident.create',
        resourceType: 'support_incident',
        resourceId: incidentId,
        tenantId: null,
        after: incident,
      });
    } else {
      const found: unknown[] = await tx.manager.query('SELECT 1 FROM support_incidents WHERE id = $1 FOR UPDATE', [incidentId]);
      if (found.length === 0) throw notFound();
    }
    const tickets: Array<{ id: string; incident_id: string | null }> = await tx.manager.query(
      'SELECT id, incident_id FROM support_tickets WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE',
      [body.ticketIds],
    );
    const byId = new Map(tickets.map((t) => [t.id, t.incident_id]));
    const linked = body.ticketIds.filter((id) => byId.has(id) && byId.get(id) !== incidentId);
    const alreadyLinked = body.ticketIds.filter((id) => byId.get(id) === incidentId);
    const notFoundIds = body.ticketIds.filter((id) => !byId.has(id));
    if (linked.length > 0) {
      await tx.manager.query('UPDATE support_tickets SET incident_id = $1, updated_at = $2 WHERE id = ANY($3::uuid[])', [
        incidentId,
        now,
        linked,
      ]);
      await recordAudit(tx, {
        action: 'support_incident.link_tickets',
        resourceType: 'support_incident',
        resourceId: incidentId,
        tenantId: null,
        after: { ticketIds: linked },
      });
    }
    const { updates: _updates, ...incident } = await incidentIn(tx, incidentId, PLATFORM);
    return { incident, created, linked, alreadyLinked, notFound: notFoundIds };
  });
}

export interface BroadcastView {
  updateId: string;
  incidentId: string;
  status: IncidentStatus;
  replayed: boolean;
  notified: number;
  alreadyNotified: number;
}

/** Posts an update (optionally changing the status) and notifies every affected merchant once. */
export async function broadcastIncident(ctx: RequestContext, id: string, body: IncidentBroadcastInput): Promise<BroadcastView> {
  return inTransaction(ctx, async (tx) => {
    const now = supportNow(tx);
    // Locking the incident serialises broadcasts of one incident, so a concurrent retry finds the first one.
    const [incident] = (await tx.manager.query('SELECT id, title, status FROM support_incidents WHERE id = $1 FOR UPDATE', [id])) as Array<{
      id: string;
      title: string;
      status: IncidentStatus;
    }>;
    if (!incident) throw notFound();
    let update: { id: string; status: IncidentStatus; message: string } | undefined;
    if (body.idempotencyKey !== undefined) {
      [update] = await tx.manager.query(
        'SELECT id, status, message FROM incident_updates WHERE incident_id = $1 AND idempotency_key = $2',
        [id, body.idempotencyKey],
      );
      if (update && (update.message !== body.message || (body.status !== undefined && body.status !== update.status)))
        throw supportError('incident_broadcast_key_reused', 'This idempotencyKey was used for another broadcast of the incident.');
    }
    const replayed = update !== undefined;
    if (!update) {
      const status = body.status ?? incident.status;
      update = { id: uuidv7(), status, message: body.message };
      await tx.manager.query(
        `INSERT INTO incident_updates (id, incident_id, message, status, idempotency_key, created_by_user_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [update.id, id, body.message, status, body.idempotencyKey ?? null, tx.actor.id ?? null, now],
      );
      await tx.manager.query(
        `UPDATE support_incidents SET status = $2, updated_at = $3,
           resolved_at = CASE WHEN $2 = 'RESOLVED' THEN coalesce(resolved_at, $3) ELSE NULL END WHERE id = $1`,
        [id, status, now],
      );
      await recordAudit(tx, {
        action: 'support_incident.broadcast',
        resourceType: 'support_incident',
        resourceId: id,
        tenantId: null,
        before: { status: incident.status },
        after: { updateId: update.id, status, idempotencyKey: body.idempotencyKey ?? null },
      });
    }
    const affected: Array<{ tenant_id: string }> = await tx.manager.query(
      'SELECT DISTINCT tenant_id FROM support_tickets WHERE incident_id = $1',
      [id],
    );
    const reached: Array<{ tenant_id: string }> = await tx.manager.query(
      `INSERT INTO incident_broadcast_recipients (update_id, tenant_id, created_at)
       SELECT $1, unnest($2::uuid[]), $3 ON CONFLICT DO NOTHING RETURNING tenant_id`,
      [update.id, affected.map((a) => a.tenant_id), now],
    );
    for (const { tenant_id: tenantId } of reached) await tellMerchant(tx, tenantId, incident.title, update);
    return {
      updateId: update.id,
      incidentId: id,
      status: update.status,
      replayed,
      notified: reached.length,
      alreadyNotified: affected.length - reached.length,
    };
  });
}

/** One in-app notification for the tenant and one e-mail to each of its owners. */
async function tellMerchant(
  tx: RequestContext,
  tenantId: string,
  title: string,
  update: { id: string; status: IncidentStatus; message: string },
) {
  const subject = `Incident update (${update.status}): ${title}`;
  const fresh = await notifyTenant(tx, {
    tenantId,
    topic: 'support.incident_update',
    title: subject,
    body: update.message,
    dedupeKey: `support-incident-update:${update.id}`,
  });
  if (!fresh) return;
  const owners: Array<{ email: string }> = await tx.manager.query(
    "SELECT email FROM users WHERE tenant_id = $1 AND tenant_role = 'owner' ORDER BY created_at, id",
    [tenantId],
  );
  for (const owner of owners)
    await servicesOf(tx).outbound.send(tx.manager, {
      channel: 'email',
      to: owner.email,
      template: 'support.incident_update',
      subject,
      body: update.message,
      tenantId,
    });
}
