/** Browser-like page loads and form posts against a test server (the console's pages and forms). */
import type { TestServer } from './harness';

export const FORM = 'application/x-www-form-urlencoded';

export interface PageResponse {
  status: number;
  text: string;
  location: string | null;
  headers: Headers;
  cookies: Record<string, string>;
}

/** A form post or page load as a browser would send it, without following redirects; cookies set are returned by name. */
export async function web(
  server: TestServer,
  method: 'GET' | 'POST',
  path: string,
  options: { form?: Record<string, string>; headers?: Record<string, string>; cookies?: Record<string, string> } = {},
): Promise<PageResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookies && Object.keys(options.cookies).length)
    headers.Cookie = Object.entries(options.cookies)
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  let body: string | undefined;
  if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers['Content-Type'] = FORM;
  }
  const res = await fetch(`${server.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const cookies: Record<string, string> = {};
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    cookies[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
  return { status: res.status, text: await res.text(), location: res.headers.get('location'), headers: res.headers, cookies };
}
