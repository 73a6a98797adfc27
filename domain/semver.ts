/**
 * Semantic versions (semver 2.0.0): the grammar and the precedence rules, pure. App versions use it
 * (docs/app-store.md, "Apps"): a release must be newer than the latest, by precedence.
 *
 * - `MAJOR.MINOR.PATCH`, each a non-negative integer without leading zeros;
 * - an optional pre-release after `-`: dot-separated identifiers of `[0-9A-Za-z-]`, none empty, numeric
 *   ones without leading zeros;
 * - optional build metadata after `+`: dot-separated identifiers of `[0-9A-Za-z-]`, none empty.
 *
 * Precedence compares the core numerically (as integers of any size), then a version with a
 * pre-release is lower than the same core without; pre-release identifiers compare left to right
 * (numeric ones numerically and below alphanumeric ones, alphanumeric ones in ASCII order), and a
 * longer list wins when all shared identifiers are equal. Build metadata never counts.
 */

export interface SemVer {
  major: string;
  minor: string;
  patch: string;
  prerelease: string[];
  build: string[];
}

const NUMERIC = '0|[1-9]\\d*';
const PRE_IDENTIFIER = `(?:${NUMERIC}|\\d*[A-Za-z-][0-9A-Za-z-]*)`;
const BUILD_IDENTIFIER = '[0-9A-Za-z-]+';
/** The grammar of semver.org, anchored. */
const SEMVER = new RegExp(
  `^(${NUMERIC})\\.(${NUMERIC})\\.(${NUMERIC})` +
    `(?:-(${PRE_IDENTIFIER}(?:\\.${PRE_IDENTIFIER})*))?` +
    `(?:\\+(${BUILD_IDENTIFIER}(?:\\.${BUILD_IDENTIFIER})*))?$`,
);

/** The longest version accepted (the grammar has no limit; the storage and the API do). */
export const SEMVER_MAX_LENGTH = 128;

/** The parts of `text`, or null when it is not a semantic version (or longer than SEMVER_MAX_LENGTH). */
export function parseSemVer(text: string): SemVer | null {
  if (typeof text !== 'string' || text.length > SEMVER_MAX_LENGTH) return null;
  const match = SEMVER.exec(text);
  if (!match) return null;
  return {
    major: match[1]!,
    minor: match[2]!,
    patch: match[3]!,
    prerelease: match[4] ? match[4].split('.') : [],
    build: match[5] ? match[5].split('.') : [],
  };
}

export function isSemVer(text: string): boolean {
  return parseSemVer(text) !== null;
}

/** Two non-negative integers without leading zeros, compared as numbers of any size. */
function compareNumeric(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

const isNumeric = (identifier: string): boolean => /^\d+$/.test(identifier);

function compareIdentifiers(a: string, b: string): number {
  const an = isNumeric(a);
  const bn = isNumeric(b);
  if (an && bn) return compareNumeric(a, b);
  if (an !== bn) return an ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** -1, 0 or 1 as `a` has lower, equal or higher precedence than `b` (build metadata ignored). */
export function compareSemVer(a: SemVer, b: SemVer): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    const order = compareNumeric(a[key], b[key]);
    if (order !== 0) return order;
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    if (a.prerelease.length === b.prerelease.length) return 0;
    return a.prerelease.length === 0 ? 1 : -1;
  }
  const shared = Math.min(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < shared; i += 1) {
    const order = compareIdentifiers(a.prerelease[i]!, b.prerelease[i]!);
    if (order !== 0) return order;
  }
  return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length < b.prerelease.length ? -1 : 1;
}

/** compareSemVer of two texts; throws when either is not a semantic version. */
export function compareVersions(a: string, b: string): number {
  const pa = parseSemVer(a);
  const pb = parseSemVer(b);
  if (!pa || !pb) throw new Error(`not a semantic version: ${pa ? b : a}`);
  return compareSemVer(pa, pb);
}

/** True when the version has a pre-release part (such as 1.0.0-beta.1). */
export function isPrerelease(version: SemVer): boolean {
  return version.prerelease.length > 0;
}
