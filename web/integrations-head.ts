/**
 * What a storefront page adds to its head for the store's integrations (docs/integrations.md,
 * "Analytics"): the tags of its enabled analytics integrations, read from the public API, and the
 * page's Content-Security-Policy widened to their hosts only while there are any.
 *
 * The tags are built again here from the provider and the setting the API answered, with the same
 * allow-list and patterns (api/store-integrations/analytics-tags.ts): the page never loads a script
 * URL it was handed, and a value that does not match is dropped. When the API cannot answer, the
 * page renders without tags (and with the strict policy) rather than failing.
 */
import type Koa from 'koa';
import { analyticsTag, type AnalyticsTag } from '../api/store-integrations/analytics-tags';
import type { ApiClient } from './api-client';
import { pageHeaders, storefrontCsp } from './page-security';

export interface IntegrationsHead {
  analytics: AnalyticsTag[];
}

export async function integrationsHead(ctx: Koa.Context, api: ApiClient, storeId: string): Promise<IntegrationsHead> {
  const res = await api.request('GET', `/store-integrations/public/stores/${storeId}/storefront`).catch(() => undefined);
  const answered: unknown[] = res?.ok && Array.isArray(res.json?.analytics) ? res.json.analytics : [];
  const analytics = answered
    .map((item) => {
      const { provider, measurementId, domain } = (item ?? {}) as Record<string, unknown>;
      return typeof provider === 'string' ? analyticsTag(provider, { measurementId, domain }) : undefined;
    })
    .filter((tag): tag is AnalyticsTag => tag !== undefined);
  pageHeaders(
    ctx,
    storefrontCsp({
      scripts: [...new Set(analytics.flatMap((tag) => tag.scriptHosts))],
      connect: [...new Set(analytics.flatMap((tag) => tag.connectHosts))],
    }),
  );
  return { analytics };
}
