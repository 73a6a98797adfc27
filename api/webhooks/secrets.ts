/**
 * Signing secrets. A secret is `whsec_` + 32 random bytes (base64url), shown once (creation,
 * rotation). It is needed again to sign every delivery, so it is kept encrypted at rest
 * (AES-256-GCM with a key derived from APP_SECRET for this purpose only), never hashed.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { decrypt, deriveKey, encrypt, randomToken } from '../auth/secrets';

const PURPOSE = 'webhook-signing-secret';

export function newSigningSecret(): string {
  return `whsec_${randomToken(32)}`;
}

export function sealSecret(appSecret: string, secret: string): string {
  return encrypt(deriveKey(appSecret, PURPOSE), secret);
}

export function openSecret(appSecret: string, sealed: string): string {
  return decrypt(deriveKey(appSecret, PURPOSE), sealed);
}

/** The tenant's secret for test deliveries to URLs that are not a registered endpoint (created on first use). */
export async function tenantTestSecret(manager: EntityManager | DataSource, appSecret: string, tenantId: string): Promise<string> {
  await manager.query('INSERT INTO webhook_test_secrets (tenant_id, secret_enc) VALUES ($1, $2) ON CONFLICT (tenant_id) DO NOTHING', [
    tenantId,
    sealSecret(appSecret, newSigningSecret()),
  ]);
  const rows: Array<{ secret_enc: string }> = await manager.query('SELECT secret_enc FROM webhook_test_secrets WHERE tenant_id = $1', [
    tenantId,
  ]);
  return openSecret(appSecret, rows[0]!.secret_enc);
}
