/**
 * Addresses of this service inside pages. The service stores some of its own URLs absolute (the
 * sandbox's seed images: `PUBLIC_BASE_URL` + path, so API clients can fetch them). A page must not
 * show them that way: opened through another host name (a proxy, another machine, a port forward)
 * an absolute `http://localhost:3000/...` breaks. So a page gets the path alone, which the browser
 * resolves against whatever address it used.
 */

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The origin of an http(s) URL (`https://host:port`, normalised); undefined for anything else. */
export function httpOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A function answering `url` as a root-relative path when it points at this service: the origin of
 * `publicBaseUrl`, or a loopback address under `/api/v1/` (written while PUBLIC_BASE_URL was its
 * localhost default). Any other value comes back unchanged. The base is read once, not per URL (a
 * product grid renders dozens).
 */
export function ownUrlResolver(publicBaseUrl: string): (url: unknown) => unknown {
  const publicOrigin = httpOrigin(publicBaseUrl);
  return (url) => {
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return url;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return url;
    }
    const own = parsed.origin === publicOrigin || (LOOPBACK.has(parsed.hostname) && parsed.pathname.startsWith('/api/v1/'));
    return own ? `${parsed.pathname}${parsed.search}${parsed.hash}` : url;
  };
}

/** `ownUrlResolver(publicBaseUrl)(url)`, for a single URL. */
export function ownUrlAsPath(url: unknown, publicBaseUrl: string): unknown {
  return ownUrlResolver(publicBaseUrl)(url);
}
