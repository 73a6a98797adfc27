/**
 * The secret fields of a connected integration (API keys and tokens of the external system). They are
 * needed again to call that system, so they are kept encrypted, never hashed: one AES-256-GCM blob
 * of the JSON of every secret field, with a key derived from APP_SECRET for this purpose only (the
 * helpers of api/auth/secrets.ts). No read answers them: a read says which secret fields are set and,
 * for secrets of 12 characters or more, their last four characters (a shorter one would give too
 * much of itself away). They never reach the audit log or the logs.
 */
import { decrypt, deriveKey, encrypt } from '../auth/secrets';

const PURPOSE = 'store-integration-secrets';

/** Long enough that showing the last four characters leaves most of the secret unknown. */
const HINT_MIN_LENGTH = 12;

export function sealIntegrationSecrets(appSecret: string, secrets: Record<string, string>): string {
  return encrypt(deriveKey(appSecret, PURPOSE), JSON.stringify(secrets));
}

export function openIntegrationSecrets(appSecret: string, sealed: string): Record<string, string> {
  return JSON.parse(decrypt(deriveKey(appSecret, PURPOSE), sealed)) as Record<string, string>;
}

/** What a read may show of each secret: its last four characters, or null when it is too short to show any. */
export function secretHints(secrets: Record<string, string>): Record<string, string | null> {
  const hints: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(secrets)) hints[key] = value.length >= HINT_MIN_LENGTH ? value.slice(-4) : null;
  return hints;
}
