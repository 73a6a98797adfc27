/**
 * Which Meilisearch node holds each store's index (docs/scaling.md, "Several Meilisearch nodes"):
 * the `search_placements` row of the store, cached in each process for PLACEMENT_TTL_MS.
 *
 * - A store gets its row the first time its index is used: the node that already has its index (a
 *   store from before there were several nodes), else the node holding the fewest documents.
 * - `npm run move-store` switches a row; each process sees the switch within PLACEMENT_TTL_MS (at
 *   once where the store-change message reaches it), and the move waits longer than that before it
 *   drops the old index. A search that finds no index where its cached placement said re-reads the
 *   row and asks again, so nothing fails meanwhile.
 * - With one node nothing is looked up: every store is on it.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { Meilisearch } from 'meilisearch';
import { calmLog } from '../lib/calm-log';
import type { MeiliNode, MeiliNodes } from './meili-nodes';
import { storeIdOfIndexUid, storeIndexUid } from './index-names';
import { MeiliResponseError, type SearchTransport } from './search-transport';

/** How long a process trusts a placement it read. */
export const PLACEMENT_TTL_MS = 5_000;
/** A store whose index is missing is looked up again at most this often (stores with nothing published have none). */
const MISSING_RECHECK_MS = 1_000;

/** Where a store's index is written and read: its node's admin client. */
export interface StoreNodes {
  adminFor(storeId: string): Promise<Meilisearch>;
}

/** Every store on one client (tools and tests given a single Meilisearch). */
export function singleNode(admin: Meilisearch): StoreNodes {
  return { adminFor: async () => admin };
}

/** A Meilisearch client means every store is on it. */
export function asStoreNodes(from: Meilisearch | StoreNodes): StoreNodes {
  return 'adminFor' in from ? from : singleNode(from);
}

/** A placement names a node this process does not know (MEILI_NODES changed without moving the store away first). */
export class UnknownNodeError extends Error {
  constructor(storeId: string, node: string) {
    super(`store ${storeId} is placed on Meilisearch node "${node}", which MEILI_NODES does not list`);
    this.name = 'UnknownNodeError';
  }
}

declare module '../storage/request-context' {
  interface ContextServices {
    /** Which Meilisearch node holds each store's index (built once by the composition root). */
    searchNodes: StorePlacements;
  }
}

export class StorePlacements implements StoreNodes {
  private readonly cache = new Map<string, { node: MeiliNode; at: number }>();

  constructor(
    private readonly dataSource: DataSource,
    readonly nodes: MeiliNodes,
    private readonly logger: Logger,
    private readonly ttlMs = PLACEMENT_TTL_MS,
  ) {}

  get several(): boolean {
    return this.nodes.all.length > 1;
  }

  /** The node holding the store's index, placing the store when it has no row yet. */
  async nodeOf(storeId: string): Promise<MeiliNode> {
    if (!this.several) return this.nodes.main;
    const id = storeId.toLowerCase();
    const cached = this.cache.get(id);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.node;
    const node = await this.lookup(id);
    this.cache.set(id, { node, at: Date.now() });
    return node;
  }

  async adminFor(storeId: string): Promise<Meilisearch> {
    return (await this.nodeOf(storeId)).admin;
  }

  /** Forgets a cached placement (`*`: every one), e.g. when a store-change message says it moved. */
  forget(storeId: string): void {
    if (storeId === '*') this.cache.clear();
    else this.cache.delete(storeId.toLowerCase());
  }

  /** The node's name in the store's row (undefined: not placed yet). */
  async placedOn(storeId: string): Promise<string | undefined> {
    const rows: Array<{ node: string }> = await this.dataSource.query('SELECT node FROM search_placements WHERE store_id = $1', [storeId]);
    return rows[0]?.node;
  }

  private async lookup(storeId: string): Promise<MeiliNode> {
    const name = (await this.placedOn(storeId)) ?? (await this.place(storeId));
    const node = this.nodes.get(name);
    if (!node) throw new UnknownNodeError(storeId, name);
    return node;
  }

  /** Gives the store a row (another process may have been first: its choice stands). */
  private async place(storeId: string): Promise<string> {
    const chosen = await this.choose(storeId);
    const rows: Array<{ node: string }> = await this.dataSource.query(
      `WITH placed AS (
         INSERT INTO search_placements (store_id, node) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM stores WHERE id = $1)
         ON CONFLICT (store_id) DO NOTHING RETURNING node)
       SELECT node FROM placed UNION ALL SELECT node FROM search_placements WHERE store_id = $1`,
      [storeId, chosen],
    );
    const node = rows[0]?.node ?? chosen;
    this.logger.info({ storeId, node }, 'search: store placed on a Meilisearch node');
    return node;
  }

  /** The node that already has the store's index, else the reachable node with the fewest documents. */
  private async choose(storeId: string): Promise<string> {
    const uid = storeIndexUid(storeId);
    const probes = await Promise.all(
      this.nodes.all.map(async (node) => {
        try {
          const stats = await node.admin.getStats();
          const documents = Object.values(stats.indexes).reduce((sum, index) => sum + index.numberOfDocuments, 0);
          return { node, reachable: true, hasIndex: uid in stats.indexes, documents };
        } catch (error) {
          calmLog(this.logger).warn(
            `placement:${node.name}`,
            error,
            { node: node.name },
            'search: a Meilisearch node did not answer for placement',
          );
          return { node, reachable: false, hasIndex: false, documents: Infinity };
        }
      }),
    );
    const holder = probes.find((p) => p.hasIndex);
    if (holder) return holder.node.name;
    const reachable = probes.filter((p) => p.reachable).sort((a, b) => a.documents - b.documents);
    if (reachable.length === 0) throw new Error('no Meilisearch node answered; the store cannot be placed yet');
    return reachable[0]!.node.name;
  }

  /**
   * The public search's connection: each request goes to the node of the store whose index it names
   * (a multi-search names one store's index in every query). A missing index where the cached
   * placement said is asked again at the store's current node (it may just have moved).
   */
  searchTransport(): SearchTransport {
    const rechecked = new Map<string, number>();
    const route = async <T>(uid: string | undefined, send: (transport: SearchTransport) => Promise<T>): Promise<T> => {
      // One node: nothing to route (the public search's hot path pays nothing for placements).
      if (!this.several) return send(this.nodes.main.search);
      const storeId = uid === undefined ? undefined : storeIdOfIndexUid(uid);
      if (storeId === undefined) return send(this.nodes.main.search);
      const node = await this.nodeOf(storeId);
      try {
        return await send(node.search);
      } catch (error) {
        if (!(error instanceof MeiliResponseError && error.code === 'index_not_found')) throw error;
        const last = rechecked.get(storeId) ?? 0;
        if (Date.now() - last < MISSING_RECHECK_MS) throw error;
        rechecked.set(storeId, Date.now());
        if (rechecked.size > 10_000) rechecked.clear();
        this.forget(storeId);
        const current = await this.nodeOf(storeId);
        if (current === node) throw error;
        return send(current.search);
      }
    };
    return {
      multiSearch: <T>(body: { queries: unknown[] }) =>
        route((body.queries[0] as { indexUid?: string } | undefined)?.indexUid, (t) => t.multiSearch<T>(body)),
      search: <T>(indexUid: string, body: Record<string, unknown>) => route(indexUid, (t) => t.search<T>(indexUid, body)),
      close: () => this.nodes.close(),
    };
  }
}
