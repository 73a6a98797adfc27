/**
 * Rate limits of the community writes (fixed windows in Redis, shared by every api process): per
 * author for what they write, per client for the public view counter. Over a limit answers 429 with
 * Retry-After before anything is written (docs/community.md, "Rate limits").
 */
import type { RateLimitRule } from '../../storage/rate-limit';
import { clientKey, hashedLimitKey } from '../../storage/rate-limit';
import { servicesOf, type RequestContext } from '../../storage/request-context';

export const COMMUNITY_LIMITS = {
  discussionsPerAuthor: { limit: 5, windowSeconds: 3600 },
  commentsPerAuthor: { limit: 20, windowSeconds: 600 },
  votesPerUser: { limit: 120, windowSeconds: 60 },
  reportsPerUser: { limit: 20, windowSeconds: 3600 },
  viewsPerClient: { limit: 300, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitRule>;

export type CommunityLimit = keyof typeof COMMUNITY_LIMITS;

/** The limiter key of a rule for a user (signed-in writes). */
export const communityLimitKey = (rule: CommunityLimit, subject: string): string => `community:${rule}:${subject}`;

/** Counts one write of the signed-in caller against `rule`. */
export async function hitUserLimit(ctx: RequestContext, rule: Exclude<CommunityLimit, 'viewsPerClient'>): Promise<void> {
  await servicesOf(ctx).rateLimiter.hit(communityLimitKey(rule, ctx.actor.id ?? 'unknown'), COMMUNITY_LIMITS[rule]);
}

/** Counts one view request of the client (its address, an IPv6 client by its /64). */
export async function hitViewLimit(ctx: RequestContext): Promise<void> {
  await servicesOf(ctx).rateLimiter.hit(
    communityLimitKey('viewsPerClient', hashedLimitKey([clientKey(ctx.client?.ip)])),
    COMMUNITY_LIMITS.viewsPerClient,
  );
}
