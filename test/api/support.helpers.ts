/**
 * Shared set-up of the support desk tests: platform staff (with or without a tenant of their own),
 * tickets made through the API, and the desk's clock, which a test moves forward to see SLAs breach.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { platformStaff } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';
import type { ApiSuite } from '../helpers/api-suite';

export const TICKETS = '/api/v1/support/tickets';
export const INCIDENTS = '/api/v1/support/incidents';
export const HOUR = 3_600_000;

export type Role = 'platform_admin' | 'support_agent' | 'sales_rep';
export interface Staff {
  userId: string;
  email: string;
  headers: Record<string, string>;
}

export function supportHelpers(getServer: () => TestServer, suite: ApiSuite) {
  const server = () => getServer();
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server().runtime.dataSource.query(sql, params);

  /** Platform staff with `role`; `tenantless` removes the tenant the sign-up made (staff of the operator only). */
  async function staff(role: Role, tenantless = true): Promise<Staff> {
    const user = await platformStaff(server(), role);
    suite.addTenant(user.tenantId);
    if (tenantless) await db('UPDATE users SET tenant_id = NULL, tenant_role = NULL WHERE id = $1', [user.userId]);
    return { userId: user.userId, email: user.email, headers: user.headers };
  }

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server()));

  async function submit(m: { headers: Record<string, string> }, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const res = await call(server(), 'POST', TICKETS, { headers: m.headers, body: { subject: 'Help', body: 'Something broke', ...body } });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const get = (as: { headers: Record<string, string> }, id: string): Promise<TestResponse> =>
    call(server(), 'GET', `${TICKETS}/${id}`, { headers: as.headers });
  const reply = (as: { headers: Record<string, string> }, id: string, body: Record<string, unknown>): Promise<TestResponse> =>
    call(server(), 'POST', `${TICKETS}/${id}/reply`, { headers: as.headers, body });
  const patch = (as: { headers: Record<string, string> }, id: string, body: Record<string, unknown>): Promise<TestResponse> =>
    call(server(), 'PATCH', `${TICKETS}/${id}`, { headers: as.headers, body });
  const list = (as: { headers: Record<string, string> }, query: string): Promise<TestResponse> =>
    call(server(), 'GET', `${TICKETS}?${query}`, { headers: as.headers });

  /** Moves the desk's clock `ms` ahead of the system clock (0: back to it). */
  function moveClock(ms: number): void {
    if (ms === 0) delete server().runtime.services.supportClock;
    else server().runtime.services.supportClock = { now: () => new Date(Date.now() + ms) };
  }

  return { db, staff, newMerchant, submit, get, reply, patch, list, moveClock };
}
