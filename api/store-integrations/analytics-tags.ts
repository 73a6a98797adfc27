/**
 * The analytics tags a storefront page may carry, one allow-list for the API and the storefront
 * (docs/integrations.md, "Analytics"). A tag is built only from an allow-listed provider and a
 * setting that matches its strict pattern, and its script comes only from that provider's fixed
 * host: nothing a merchant types can add markup, a script or a host to the page. The storefront
 * builds the tags again from the provider and setting it reads from the API (web/integrations-head.ts),
 * so a page never loads a URL it was handed.
 */

export const ANALYTICS_PROVIDERS = ['google-analytics-4', 'plausible-analytics'] as const;
export type AnalyticsProvider = (typeof ANALYTICS_PROVIDERS)[number];

/** A GA4 measurement id: G- and 4 to 16 upper-case letters and digits. */
export const GA4_MEASUREMENT_ID = /^G-[A-Z0-9]{4,16}$/;
/** A lower-case DNS name of at least two labels (Plausible's site domain). */
export const PLAUSIBLE_DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export interface AnalyticsTag {
  provider: AnalyticsProvider;
  /** The script the page loads. */
  scriptSrc: string;
  measurementId?: string;
  domain?: string;
  /** Origins the page's Content-Security-Policy must allow scripts from. */
  scriptHosts: string[];
  /** Origins the page's Content-Security-Policy must allow the tag's beacons to (connect-src). */
  connectHosts: string[];
}

/** The tag of `provider` with its setting, or undefined when the provider is unknown or the setting does not match its pattern. */
export function analyticsTag(provider: string, settings: Record<string, unknown>): AnalyticsTag | undefined {
  if (provider === 'google-analytics-4') {
    const id = settings.measurementId;
    if (typeof id !== 'string' || !GA4_MEASUREMENT_ID.test(id)) return undefined;
    return {
      provider,
      scriptSrc: `https://www.googletagmanager.com/gtag/js?id=${id}`,
      measurementId: id,
      scriptHosts: ['https://www.googletagmanager.com'],
      connectHosts: ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://www.googletagmanager.com'],
    };
  }
  if (provider === 'plausible-analytics') {
    const domain = settings.domain;
    if (typeof domain !== 'string' || !PLAUSIBLE_DOMAIN.test(domain)) return undefined;
    return {
      provider,
      scriptSrc: 'https://plausible.io/js/script.js',
      domain,
      scriptHosts: ['https://plausible.io'],
      connectHosts: ['https://plausible.io'],
    };
  }
  return undefined;
}
