/**
 * Store API keys. A key is `sk_<10 lowercase letters or digits>_<43 random characters>` (256 bits of
 * secret); the first part (`sk_…`) is its visible prefix, which finds the row, and only the SHA-256 of
 * the whole key is kept. The key is returned once, by create, and never again (lists, exports and the
 * audit log hold the prefix only).
 *
 * Access: owners and admins create and revoke; any member may list and export; an API key may list
 * and export its own store's keys with `api-keys:read`, and can never create or revoke keys (403
 * `api_key_not_allowed`). Another tenant's store or key answers 404.
 */
import { randomInt } from 'node:crypto';
import { ApiKey } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { API_KEY_PREFIX } from '../auth/authenticator';
import { randomToken, sha256 } from '../auth/secrets';
import { attachment, toCsv, type CsvColumn, type CsvDownload } from '../http/csv';
import { requireStore, requireTenantUser, TENANT_ADMINS } from '../../domain/store-access';
import { apiKeysError } from './api-keys.errors';
import type { CreateApiKeyDto } from './api-keys.schemas';
import type { InputOf } from '../http/typed-schema';

const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PREFIX_LENGTH = 10;

/** `sk_` and 10 characters from [a-z0-9] (about 52 bits: unique in practice; the unique index guards the rest). */
export function newKeyPrefix(): string {
  let id = '';
  for (let i = 0; i < PREFIX_LENGTH; i += 1) id += PREFIX_ALPHABET[randomInt(PREFIX_ALPHABET.length)];
  return `${API_KEY_PREFIX}${id}`;
}

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

export function keyStatus(key: ApiKey, now = Date.now()): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now) return 'expired';
  return 'active';
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function apiKeyItem(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    storeId: key.storeId,
    prefix: key.prefix,
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    expiresAt: iso(key.expiresAt),
    createdBy: key.createdBy,
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
    status: keyStatus(key),
  };
}

export type CreateApiKeyInput = InputOf<typeof CreateApiKeyDto>;

export async function createApiKey(ctx: RequestContext, input: CreateApiKeyInput) {
  const userId = requireTenantUser(ctx, TENANT_ADMINS);
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    const prefix = newKeyPrefix();
    const key = `${prefix}_${randomToken(32)}`;
    const row = tenantRepository(tx, ApiKey).create({
      id: uuidv7(),
      storeId: store.id,
      name: input.name,
      prefix,
      secretHash: sha256(key),
      scopes: input.scopes,
      createdBy: userId,
      createdAt: new Date(),
      expiresAt: input.expiresAt ?? null,
      lastUsedAt: null,
      revokedAt: null,
    });
    await tx.manager.insert(ApiKey, row);
    const { id, name, storeId, scopes, createdAt, expiresAt } = apiKeyItem(row);
    await recordAudit(tx, {
      action: 'api_key.create',
      resourceType: 'api_key',
      resourceId: id,
      after: { name, storeId, prefix, scopes, expiresAt },
    });
    return { id, name, storeId, prefix, scopes, createdAt, expiresAt, key };
  });
}

async function storeKeys(ctx: RequestContext, storeId: string): Promise<ApiKey[]> {
  const store = await requireStore(ctx, storeId);
  return tenantRepository(ctx, ApiKey).find({ where: { storeId: store.id }, order: { id: 'DESC' } });
}

export async function listApiKeys(ctx: RequestContext, storeId: string) {
  const keys = await storeKeys(ctx, storeId);
  return { items: keys.map(apiKeyItem), nextCursor: null };
}

type KeyItem = ReturnType<typeof apiKeyItem>;

const CSV_COLUMNS: CsvColumn<KeyItem>[] = [
  { header: 'id', value: (k) => k.id },
  { header: 'name', value: (k) => k.name },
  { header: 'prefix', value: (k) => k.prefix },
  { header: 'scopes', value: (k) => k.scopes },
  { header: 'status', value: (k) => k.status },
  { header: 'createdAt', value: (k) => k.createdAt },
  { header: 'expiresAt', value: (k) => k.expiresAt },
  { header: 'lastUsedAt', value: (k) => k.lastUsedAt },
  { header: 'revokedAt', value: (k) => k.revokedAt },
  { header: 'createdBy', value: (k) => k.createdBy },
];

/** The store's keys as a CSV download (never a secret: only the prefix is stored readable). */
export async function exportApiKeys(ctx: RequestContext, storeId: string): Promise<CsvDownload> {
  const keys = await storeKeys(ctx, storeId);
  return { body: toCsv(keys.map(apiKeyItem), CSV_COLUMNS), disposition: attachment(`api-keys-${storeId}.csv`) };
}

const keyNotFound = () => apiKeysError('api_key_not_found', 'The API key does not exist.');

/** Revokes a key at once (its next request answers 401). Revoking a revoked key changes nothing. */
export async function revokeApiKey(ctx: RequestContext, keyId: string): Promise<void> {
  requireTenantUser(ctx, TENANT_ADMINS);
  await inTransaction(ctx, async (tx) => {
    const keys = tenantRepository(tx, ApiKey, keyNotFound);
    const key = await keys.findOne({ where: { id: keyId }, lock: { mode: 'pessimistic_write' } });
    if (!key) throw keyNotFound();
    if (key.revokedAt) return;
    const revokedAt = new Date();
    await keys.update({ id: key.id }, { revokedAt });
    await recordAudit(tx, {
      action: 'api_key.revoke',
      resourceType: 'api_key',
      resourceId: key.id,
      before: { status: keyStatus(key) },
      after: { status: 'revoked', revokedAt, name: key.name, storeId: key.storeId, prefix: key.prefix },
    });
  });
}
