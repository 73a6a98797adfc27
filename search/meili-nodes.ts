/**
 * The Meilisearch nodes of this deployment, each with its admin client (master key) and its search
 * transport (search-only key). One node, `main` at MEILI_URL, unless MEILI_NODES lists several
 * (docs/scaling.md). Which node holds which store's index is search/store-placement.ts's job.
 */
import type { Meilisearch } from 'meilisearch';
import type { Config, MeiliNodeConfig } from '../lib/config';
import { createAdminClient, keyValueFor, searchKeyUid } from './meili';
import { createSearchTransport, type SearchTransport } from './search-transport';

/** The name of the only node when MEILI_NODES is not set. */
export const MAIN_NODE = 'main';

export interface MeiliNode {
  readonly name: string;
  readonly url: string;
  readonly masterKey: string;
  /** Settings, documents, keys, tasks. */
  readonly admin: Meilisearch;
  /** The public search's connection (search-only key derived from the node's master key). */
  readonly search: SearchTransport;
}

export function nodeConfigsOf(config: Pick<Config, 'meiliUrl' | 'meiliMasterKey' | 'meiliNodes'>): MeiliNodeConfig[] {
  return config.meiliNodes ?? [{ name: MAIN_NODE, url: config.meiliUrl, masterKey: config.meiliMasterKey }];
}

export class MeiliNodes {
  readonly all: readonly MeiliNode[];
  private readonly byName: Map<string, MeiliNode>;

  constructor(configs: readonly MeiliNodeConfig[], options: { adminTimeoutMs?: number; searchTimeoutMs?: number } = {}) {
    if (configs.length === 0) throw new Error('at least one Meilisearch node is needed');
    this.all = configs.map((node) => ({
      ...node,
      admin: createAdminClient({ meiliUrl: node.url, meiliMasterKey: node.masterKey }, options.adminTimeoutMs),
      search: createSearchTransport(
        node.url,
        keyValueFor(searchKeyUid(node.masterKey), node.masterKey),
        options.searchTimeoutMs,
        node.name,
      ),
    }));
    this.byName = new Map(this.all.map((node) => [node.name, node]));
  }

  static fromConfig(config: Pick<Config, 'meiliUrl' | 'meiliMasterKey' | 'meiliNodes'>, options?: { adminTimeoutMs?: number }): MeiliNodes {
    return new MeiliNodes(nodeConfigsOf(config), options);
  }

  /** The first node: where everything goes with one node. */
  get main(): MeiliNode {
    return this.all[0]!;
  }

  get(name: string): MeiliNode | undefined {
    return this.byName.get(name);
  }

  /** Searches still running finish first. */
  close(): void {
    for (const node of this.all) node.search.close();
  }
}
