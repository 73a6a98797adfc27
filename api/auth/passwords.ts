/**
 * Password rules and hashing. The same rules object is served by GET /auth/password-rules and
 * enforced by registration, reset and change, so what a client shows is exactly what is checked.
 * Hashing is Argon2id (memory-hard) through the maintained `argon2` package.
 */
import fs from 'node:fs';
import path from 'node:path';
import argon2 from 'argon2';
import { PROJECT_ROOT } from '../../lib/config';
import type { FieldError } from '../../lib/errors';

export const PASSWORD_RULES = {
  minLength: 10,
  maxLength: 128,
  requireLowercase: true,
  requireUppercase: true,
  requireDigit: true,
  requireSymbol: false,
  notContainingEmail: true,
  notCommon: true,
} as const;

const COMMON_FILE = path.join(PROJECT_ROOT, 'api', 'auth', 'common-passwords.txt');
let common: Set<string> | undefined;

function commonPasswords(): Set<string> {
  common ??= new Set(
    fs
      .readFileSync(COMMON_FILE, 'utf8')
      .split('\n')
      .map((l) => l.trim().toLowerCase())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
  return common;
}

export function commonPasswordCount(): number {
  return commonPasswords().size;
}

/** Returns every rule the password breaks (empty when it is acceptable). */
export function passwordProblems(password: string, email?: string, fieldPath = 'body.password'): FieldError[] {
  const problems: string[] = [];
  if (password.length < PASSWORD_RULES.minLength) problems.push(`must be at least ${PASSWORD_RULES.minLength} characters`);
  if (password.length > PASSWORD_RULES.maxLength) problems.push(`must be at most ${PASSWORD_RULES.maxLength} characters`);
  if (!/[a-z]/.test(password)) problems.push('must contain a lowercase letter');
  if (!/[A-Z]/.test(password)) problems.push('must contain an uppercase letter');
  if (!/[0-9]/.test(password)) problems.push('must contain a digit');
  const lower = password.toLowerCase();
  const local = email?.split('@')[0]?.toLowerCase();
  if (email && (lower.includes(email.toLowerCase()) || (local && local.length >= 3 && lower.includes(local))))
    problems.push('must not contain the e-mail address');
  const stripped = lower.replace(/[^a-z]+$/, '');
  if (commonPasswords().has(lower) || (stripped.length >= 4 && commonPasswords().has(stripped))) problems.push('is too common');
  return problems.map((message) => ({ path: fieldPath, message: `password ${message}` }));
}

const HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, HASH_OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies `password` against `hash`; with no hash (unknown account) it still spends the time of a
 * real verification, so response times do not reveal which e-mail addresses have accounts.
 */
export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
  if (!hash) {
    dummyHash ??= hashPassword('an unknown account has no password');
    await argon2.verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return argon2.verify(hash, password).catch(() => false);
}
