/**
 * Messages to a store's customers (docs/messaging.md, "Messages to customers"): the one place that
 * decides whether a customer is written to, and records and queues the message through the outbound
 * port (storage/outbound-messages.ts) inside the caller's transaction, so a write that rolls back
 * sends nothing. Checks, in order: the suppression list (platform-wide, or the store's entry for the
 * address's hash), the customer's preference for the category, the tenant's policy for the category,
 * then the tenant's digest (a non-transactional message is held for the digest instead of sent).
 * TRANSACTIONAL messages pass the preference, the policy and the digest; only suppression stops them.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { servicesOf, type RequestContext } from './request-context';

/** Categories of messages to a store's customers (docs/messaging.md): TRANSACTIONAL ones cannot be turned off. */
export const MESSAGE_CATEGORIES = ['TRANSACTIONAL', 'ORDER_UPDATES', 'MARKETING', 'NEWSLETTER'] as const;
export type MessageCategory = (typeof MESSAGE_CATEGORIES)[number];

export interface CustomerMessage {
  storeId: string;
  customerId: string;
  category: MessageCategory;
  channel: 'email' | 'sms';
  template: string;
  subject?: string;
  body: string;
  /** At most one message per store and key (a retried campaign or automation step sends once). */
  dedupeKey?: string;
}

export type CustomerMessageOutcome =
  { status: 'queued'; messageId: string } | { status: 'suppressed' | 'opted_out' | 'policy_blocked' | 'duplicate' | 'no_address' };

/** The address as it is compared and hashed: trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** SHA-256 (hex) of the normalised address: all the suppression list keeps of an address, with its domain. */
export function emailHash(email: string): string {
  return createHash('sha256').update(normaliseEmail(email), 'utf8').digest('hex');
}

export function emailDomain(email: string): string {
  const normalised = normaliseEmail(email);
  return normalised.slice(normalised.lastIndexOf('@') + 1);
}

/** Whether the address is suppressed platform-wide or for the store. */
export async function isSuppressed(ctx: RequestContext, storeId: string, email: string): Promise<boolean> {
  const rows: unknown[] = await ctx.manager.query(
    `SELECT 1 FROM email_suppression_entries WHERE email_hash = $1 AND (applies_platform OR store_id = $2) LIMIT 1`,
    [emailHash(email), storeId],
  );
  return rows.length > 0;
}

/** Whether the tenant's digest is on (frequency other than OFF): non-transactional messages are then held for it. */
async function digestOn(ctx: RequestContext, tenantId: string): Promise<boolean> {
  const rows: Array<{ frequency: string }> = await ctx.manager.query(
    'SELECT frequency FROM tenant_notification_digests WHERE tenant_id = $1',
    [tenantId],
  );
  return rows.length === 1 && rows[0]!.frequency !== 'OFF';
}

/**
 * Inside the caller's transaction: checks, in order, the suppression list, the customer's
 * per-category preference, the tenant's policy (and digest setting); records the message
 * (outbound_messages, with store, customer, category) and queues its delivery after commit through
 * the outbound port (the jobs worker sends it). A message held for the digest is recorded `held`
 * and still answers `queued` (the digest job sends it).
 */
export async function queueCustomerMessage(tx: RequestContext, message: CustomerMessage): Promise<CustomerMessageOutcome> {
  if (!tx.inTransaction) throw new Error('queueCustomerMessage must run inside the transaction of the write (use inTransaction)');
  const customers: Array<{ tenant_id: string; email: string | null; phone: string | null }> = await tx.manager.query(
    'SELECT tenant_id, email, phone FROM customers WHERE id = $1 AND store_id = $2',
    [message.customerId, message.storeId],
  );
  const customer = customers[0];
  if (!customer || (tx.tenantId !== undefined && customer.tenant_id !== tx.tenantId)) return { status: 'no_address' };
  const address = message.channel === 'email' ? customer.email : customer.phone;
  if (!address || address.trim() === '') return { status: 'no_address' };
  const tenantId = customer.tenant_id;
  const transactional = message.category === 'TRANSACTIONAL';

  if (customer.email && (await isSuppressed(tx, message.storeId, customer.email))) return { status: 'suppressed' };
  if (!transactional) {
    const preference: Array<{ enabled: boolean }> = await tx.manager.query(
      'SELECT enabled FROM customer_notification_preferences WHERE customer_id = $1 AND category = $2',
      [message.customerId, message.category],
    );
    if (preference[0]?.enabled === false) return { status: 'opted_out' };
    const policy: Array<{ enabled: boolean }> = await tx.manager.query(
      'SELECT enabled FROM tenant_notification_policies WHERE tenant_id = $1 AND category = $2',
      [tenantId, message.category],
    );
    if (policy[0]?.enabled === false) return { status: 'policy_blocked' };
  }
  const hold = !transactional && message.channel === 'email' && (await digestOn(tx, tenantId));
  const id = await servicesOf(tx).outbound.send(tx.manager, {
    channel: message.channel,
    to: address.trim(),
    template: message.template,
    subject: message.subject,
    body: message.body,
    tenantId,
    storeId: message.storeId,
    customerId: message.customerId,
    category: message.category,
    dedupeKey: message.dedupeKey ?? null,
    hold,
  });
  return id === null ? { status: 'duplicate' } : { status: 'queued', messageId: id };
}

// ---- unsubscribe links ---------------------------------------------------------------------------

/** The path of the public unsubscribe page (api/email-suppression), relative to the API's base. */
export const UNSUBSCRIBE_PATH = '/api/v1/email-suppression-entries/public/unsubscribe';

interface UnsubscribeClaims {
  storeId: string;
  customerId: string;
  /** The address's hash: the token never carries the address in clear. */
  emailHash: string;
}

function unsubscribeSignature(appSecret: string, payload: string): string {
  const key = Buffer.from(hkdfSync('sha256', appSecret, 'commerce-platform', 'email-unsubscribe', 32));
  return createHmac('sha256', key).update(payload).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A signed token naming the store, the customer and the address's hash (no expiry: unsubscribe links must keep working). */
export function unsubscribeToken(appSecret: string, input: { storeId: string; customerId: string; email: string }): string {
  const claims: UnsubscribeClaims = {
    storeId: input.storeId.toLowerCase(),
    customerId: input.customerId.toLowerCase(),
    emailHash: emailHash(input.email),
  };
  const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${payload}.${unsubscribeSignature(appSecret, payload)}`;
}

/** The claims of a token this platform signed, or null. */
export function readUnsubscribeToken(appSecret: string, token: string): UnsubscribeClaims | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  if (!sameText(signature, unsubscribeSignature(appSecret, payload))) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<UnsubscribeClaims>;
    if (typeof claims.storeId !== 'string' || typeof claims.customerId !== 'string' || typeof claims.emailHash !== 'string') return null;
    return { storeId: claims.storeId, customerId: claims.customerId, emailHash: claims.emailHash };
  } catch {
    return null;
  }
}

/** The link a marketing e-mail carries: opening it lets the customer unsubscribe from the store's mail (an UNSUBSCRIBE suppression). */
export function unsubscribeUrl(ctx: RequestContext, input: { storeId: string; customerId: string; email: string }): string {
  const config = servicesOf(ctx).config;
  const token = unsubscribeToken(config.appSecret, input);
  return `${config.publicBaseUrl}${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token)}`;
}
