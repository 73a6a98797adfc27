/**
 * Store slugs: the rules (lowercase letters, digits and single hyphens, 3 to 60 characters, starting
 * and ending with a letter or digit), the reserved words, deriving a slug from a name, and finding a
 * free one. Slugs are unique platform-wide and case-insensitively (index `stores_slug`); archived
 * stores keep theirs, so a link to an old store never starts pointing at someone else's.
 */
import type { EntityManager } from 'typeorm';
import { Store } from '../../storage/entities';
import { firstFreeSlug, slugify as slugifyText } from '../../domain/slugs';

export const SLUG_MIN = 3;
export const SLUG_MAX = 60;
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$/;

/**
 * Words a store may not take: they name parts of the platform (subdomains, top-level paths) or
 * would mislead shoppers.
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'about',
  'account',
  'accounts',
  'admin',
  'administrator',
  'api',
  'app',
  'apps',
  'assets',
  'auth',
  'billing',
  'blog',
  'cart',
  'cdn',
  'checkout',
  'community',
  'dashboard',
  'dev',
  'developer',
  'developers',
  'docs',
  'email',
  'ftp',
  'help',
  'internal',
  'legal',
  'login',
  'logout',
  'mail',
  'marketplace',
  'me',
  'merchant',
  'merchants',
  'new',
  'null',
  'oauth',
  'official',
  'partner',
  'partners',
  'platform',
  'privacy',
  'public',
  'register',
  'root',
  'sandbox',
  'search',
  'security',
  'settings',
  'shop',
  'signin',
  'signup',
  'smtp',
  'stage',
  'staging',
  'static',
  'status',
  'store',
  'stores',
  'support',
  'system',
  'terms',
  'test',
  'undefined',
  'webhooks',
  'www',
]);

export type SlugProblem = 'invalid' | 'reserved';

/** Why `slug` cannot be used whatever the other stores are, or undefined when it is well-formed and not reserved. */
export function slugProblem(slug: string): SlugProblem | undefined {
  if (slug.length < SLUG_MIN || slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug)) return 'invalid';
  if (RESERVED_SLUGS.has(slug)) return 'reserved';
  return undefined;
}

/** A well-formed slug made from any text: accents dropped, other characters turned into hyphens. */
export function slugify(text: string, maxLength = SLUG_MAX): string {
  let slug = slugifyText(text, maxLength, '');
  if (slug.length < SLUG_MIN) slug = slug === '' ? 'my-store' : `${slug}-store`;
  if (RESERVED_SLUGS.has(slug)) slug = `${slug}-store`.slice(0, maxLength);
  return slug;
}

export async function slugTaken(manager: EntityManager, slug: string): Promise<boolean> {
  return manager.getRepository(Store).createQueryBuilder('s').where('lower(s.slug) = lower(:slug)', { slug }).getExists();
}

/**
 * The first free slug among `base`, `base-2`, `base-3`, … (the base is shortened so the number
 * fits). Another request may take it before it is used; the unique index then answers 409.
 */
export async function freeSlug(manager: EntityManager, text: string): Promise<string> {
  const base = slugify(text, SLUG_MAX - 5);
  const rows: Array<{ slug: string }> = await manager
    .getRepository(Store)
    .createQueryBuilder('s')
    .select('lower(s.slug)', 'slug')
    .where('lower(s.slug) = :base OR lower(s.slug) LIKE :pattern', { base, pattern: `${base}-%` })
    .getRawMany();
  const taken = new Set(rows.map((row) => row.slug));
  return firstFreeSlug(base, (slug) => taken.has(slug));
}
