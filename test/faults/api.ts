/**
 * The public HTTP API over plain fetch, as a merchant's client uses it: sign-up, stores, products,
 * imports, webhook endpoints. Request shapes are those of test/helpers/accounts.ts and
 * test/helpers/fixtures.ts. Every call has a deadline; a network error answers status 0.
 */
import { randomBytes } from 'node:crypto';

export interface ApiResponse {
  /** 0: no answer (refused, reset, timed out). */
  status: number;
  json: any;
  text: string;
}

export class Api {
  token = '';

  constructor(public baseUrl: string) {}

  async call(method: string, path: string, options: { body?: unknown; csv?: string; timeoutMs?: number } = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (options.csv !== undefined) {
      headers['Content-Type'] = 'text/csv';
      body = options.csv;
    } else if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const text = await res.text();
      let json: any;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, json, text };
    } catch (error) {
      return { status: 0, json: undefined, text: String((error as { cause?: unknown }).cause ?? error) };
    }
  }

  /** Like call, but throws unless the answer has status `expected`. */
  async expect(
    expected: number,
    method: string,
    path: string,
    options: { body?: unknown; csv?: string; timeoutMs?: number } = {},
  ): Promise<any> {
    const res = await this.call(method, path, options);
    if (res.status !== expected)
      throw new Error(`${method} ${path} answered ${res.status}, expected ${expected}: ${res.text.slice(0, 500)}`);
    return res.json;
  }
}

export interface MerchantAccount {
  api: Api;
  tenantId: string;
}

/** A new merchant through POST /auth/register (which answers a token pair at once). */
export async function registerMerchant(baseUrl: string, label: string): Promise<MerchantAccount> {
  const api = new Api(baseUrl);
  const suffix = randomBytes(6).toString('hex');
  const res = await api.expect(201, 'POST', '/api/v1/auth/register', {
    body: {
      email: `faults-${label}-${suffix}@example.test`,
      password: 'Correct-Horse-42-Battery',
      name: 'Fault Owner',
      companyName: `Faults ${label} ${suffix}`,
    },
  });
  api.token = res.accessToken;
  return { api, tenantId: res.tenant.id };
}

export async function createStore(api: Api, name: string): Promise<string> {
  const res = await api.expect(201, 'POST', '/api/v1/organization/stores', {
    body: { name, slug: `${name.toLowerCase()}-${randomBytes(5).toString('hex')}`, currency: 'EUR' },
  });
  return res.id;
}
