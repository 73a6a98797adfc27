/**
 * The set-up that API test files share, registered as hooks of the `describe` it is called in:
 * `before` starts a test server and hands it to the file; `after` marks the unfinished outbox rows of
 * the tenants the file made as done (so no worker of a later file picks them up), deletes the
 * Meilisearch indexes (live and temporary) of the stores it indexed, and closes the server.
 *
 *   let server: TestServer;
 *   const suite = apiSuite((started) => (server = started));   // or apiSuite(cb, { config }), { routes }, { start }
 *   const newMerchant = async () => suite.addMerchant(await merchant(server));
 *
 * A file's own `before` hooks, registered after the call, run once the server is up; its own `after`
 * hooks run after this one (so after the server is closed: the shared runtime stays open).
 */
import type { RouteDef } from '../../api/http/route';
import type { Config } from '../../lib/config';
import { storeIndexUid, tmpIndexUid } from '../../search/index-names';
import { startTestServer, type TestServer } from './harness';

export interface ApiSuiteOptions {
  /** Settings of the server that differ from the test configuration (passed to startTestServer). */
  config?: Partial<Config>;
  /** Routes the server serves instead of the application's (passed to startTestServer), e.g. test-only ones. */
  routes?: RouteDef[];
  /** Starts the server another way (e.g. startIsolatedServer, for a rate limiter of the file's own). */
  start?: () => Promise<TestServer>;
}

export interface ApiSuite {
  /** Marks the tenant's outbox rows done at the end. */
  addTenant(tenantId: string): void;
  /** Deletes the store's indexes at the end. */
  addIndexedStore(storeId: string): void;
  /** `addTenant` for a merchant (and, with `indexed`, `addIndexedStore` for its store); returns it. */
  addMerchant<M extends { owner: { tenantId: string }; storeId: string }>(merchant: M, options?: { indexed?: boolean }): M;
}

export function apiSuite(started: (server: TestServer) => void, options: ApiSuiteOptions = {}): ApiSuite {
  let server: TestServer;
  const tenants: string[] = [];
  const indexedStores: string[] = [];

  before(async () => {
    server = options.start ? await options.start() : await startTestServer({ config: options.config, routes: options.routes });
    started(server);
  });

  after(async () => {
    await server.runtime.dataSource.query(
      "UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = ANY($1::uuid[]) AND status <> 'done'",
      [tenants],
    );
    for (const storeId of indexedStores) {
      for (const uid of [storeIndexUid(storeId), tmpIndexUid(storeId)])
        await server.runtime.meiliAdmin
          .deleteIndex(uid)
          .waitTask({ timeout: 10_000 })
          .catch(() => undefined);
    }
    await server.close();
  });

  const suite: ApiSuite = {
    addTenant: (tenantId) => void tenants.push(tenantId),
    addIndexedStore: (storeId) => void indexedStores.push(storeId),
    addMerchant(merchant, options = {}) {
      if (options.indexed) suite.addIndexedStore(merchant.storeId);
      suite.addTenant(merchant.owner.tenantId);
      return merchant;
    },
  };
  return suite;
}
