/**
 * What the suite judges after a fault, read straight from the sources of truth: PostgreSQL (a pg
 * pool of its own) and the store's Meilisearch index (master key), never through the platform.
 */
import { Meilisearch, MeilisearchApiError } from 'meilisearch';
import { Pool } from 'pg';
import { storeIndexUid } from '../../search/index-names';
import type { Writer } from './workload';
import { sleep } from './util';

export interface IndexDiff {
  equal: boolean;
  /** PUBLISHED in PostgreSQL, no document. */
  missing: number;
  /** Document of a PUBLISHED product whose title or price (or image vector) is not PostgreSQL's. */
  stale: number;
  /** Document of a product that is deleted, draft or archived in PostgreSQL. */
  deletedVisible: number;
  /** PUBLISHED products with an image the vision worker has not embedded yet (stores checked with vectors). */
  visionPending: number;
  /** Why the check could not run (Meilisearch or PostgreSQL unreachable). */
  error?: string;
  sample: string[];
}

export interface StoreCheck {
  storeId: string;
  /** Also judge image vectors: stored in PostgreSQL for every published image, and carried by the documents. */
  vectors?: boolean;
}

interface Doc {
  id: string;
  title: string;
  price: number;
  _vectors?: { image?: { embeddings?: unknown[] } | null };
}

export class Consistency {
  readonly pool: Pool;
  private readonly meili: Meilisearch;

  constructor(databaseUrl: string, meiliUrl: string, masterKey: string) {
    this.pool = new Pool({ connectionString: databaseUrl, max: 3, connectionTimeoutMillis: 3_000, statement_timeout: 10_000 });
    // PostgreSQL restarts during the suite: an idle client's error must not crash mocha.
    this.pool.on('error', () => undefined);
    this.meili = new Meilisearch({ host: meiliUrl, apiKey: masterKey, timeout: 5_000 });
  }

  async query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  /** Compares the store's index with PostgreSQL right now. */
  async indexEqualsPostgres(check: StoreCheck): Promise<IndexDiff> {
    const diff: IndexDiff = { equal: false, missing: 0, stale: 0, deletedVisible: 0, visionPending: 0, sample: [] };
    let rows: Array<{
      id: string;
      title: string;
      price: string;
      status: string;
      image: string | null;
      vector_url: string | null;
      vector_status: string | null;
      has_vector: boolean;
    }>;
    let docs: Doc[];
    try {
      rows = await this.query(
        `SELECT p.id, p.title, p.price::text AS price, p.status, img.url AS image, v.image_url AS vector_url, v.status AS vector_status, (v.vector IS NOT NULL) AS has_vector
           FROM products p
           LEFT JOIN LATERAL (SELECT url FROM product_images i WHERE i.product_id = p.id ORDER BY i.position LIMIT 1) img ON true
           LEFT JOIN product_image_vectors v ON v.product_id = p.id
          WHERE p.store_id = $1`,
        [check.storeId],
      );
      docs = await this.documents(check.storeId, check.vectors === true);
    } catch (error) {
      diff.error = (error as Error).message;
      return diff;
    }
    const published = new Map(rows.filter((r) => r.status === 'PUBLISHED').map((r) => [r.id, r]));
    const seen = new Set<string>();
    for (const doc of docs) {
      seen.add(doc.id);
      const row = published.get(doc.id);
      if (!row) {
        diff.deletedVisible += 1;
        diff.sample.push(`visible but not published: ${doc.id}`);
        continue;
      }
      const vectorsDiffer = check.vectors === true && row.has_vector !== (doc._vectors?.image?.embeddings?.length ?? 0) > 0;
      if (doc.title !== row.title || doc.price !== Number(row.price) || vectorsDiffer) {
        diff.stale += 1;
        diff.sample.push(
          `stale ${doc.id}: index "${doc.title}" ${doc.price}${vectorsDiffer ? ' (vector)' : ''}, PostgreSQL "${row.title}" ${row.price}`,
        );
      }
    }
    for (const row of published.values()) {
      if (!seen.has(row.id)) {
        diff.missing += 1;
        diff.sample.push(`missing ${row.id} "${row.title}"`);
      }
      if (check.vectors && row.image && !(row.vector_status === 'INDEXED' && row.vector_url === row.image)) {
        diff.visionPending += 1;
        diff.sample.push(`image not embedded: ${row.id} (${row.vector_status ?? 'no vector row'})`);
      }
    }
    diff.sample = diff.sample.slice(0, 5);
    diff.equal = diff.missing + diff.stale + diff.deletedVisible + diff.visionPending === 0;
    return diff;
  }

  /**
   * Polls until every store's index equals PostgreSQL, for at most `limitMs` after `since`. Returns
   * the time from `since` (the dependency's return, the worker's death) to the first equal check,
   * or null with the last differences.
   */
  async waitUntilIndexEqual(
    checks: StoreCheck[],
    since: number,
    limitMs: number,
  ): Promise<{ elapsedMs: number | null; diffs: IndexDiff[] }> {
    let diffs: IndexDiff[] = [];
    while (Date.now() - since <= limitMs) {
      diffs = await Promise.all(checks.map((c) => this.indexEqualsPostgres(c)));
      if (diffs.every((d) => d.equal)) return { elapsedMs: Date.now() - since, diffs };
      await sleep(200);
    }
    return { elapsedMs: null, diffs };
  }

  /**
   * Acknowledged writes PostgreSQL does not hold: a product expected deleted that exists, or one
   * whose title, price or status is not what the last acknowledged write answered.
   */
  async lostWrites(writer: Writer): Promise<{ lost: number; judged: number; uncertain: number; sample: string[] }> {
    const expected = [...writer.products.values()];
    const rows = await this.query<{ id: string; title: string; price: string; status: string }>(
      'SELECT id, title, price::text AS price, status FROM products WHERE id = ANY($1::uuid[])',
      [expected.map((p) => p.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const sample: string[] = [];
    let lost = 0;
    let uncertain = 0;
    for (const p of expected) {
      if (p.uncertain) {
        uncertain += 1;
        continue;
      }
      const row = byId.get(p.id);
      const ok = p.deleted ? !row : row !== undefined && row.title === p.title && Number(row.price) === p.price && row.status === p.status;
      if (!ok) {
        lost += 1;
        sample.push(
          p.deleted
            ? `deleted ${p.id} is back`
            : `${p.id}: expected "${p.title}" ${p.price} ${p.status}, PostgreSQL ${row ? `"${row.title}" ${row.price} ${row.status}` : 'has no row'}`,
        );
      }
    }
    return { lost, judged: expected.length - uncertain, uncertain, sample: sample.slice(0, 5) };
  }

  /** Products of the store sharing a title (every write of the writer has a title of its own). */
  async duplicateTitles(storeId: string): Promise<number> {
    const [row] = await this.query<{ n: number }>(
      'SELECT coalesce(sum(c - 1), 0)::int AS n FROM (SELECT count(*) AS c FROM products WHERE store_id = $1 GROUP BY title HAVING count(*) > 1) d',
      [storeId],
    );
    return row?.n ?? 0;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  private async documents(storeId: string, vectors: boolean): Promise<Doc[]> {
    const index = this.meili.index<Doc>(storeIndexUid(storeId));
    const docs: Doc[] = [];
    try {
      for (let offset = 0; ; offset += 1_000) {
        const page = await index.getDocuments({
          fields: vectors ? ['id', 'title', 'price', '_vectors'] : ['id', 'title', 'price'],
          limit: 1_000,
          offset,
          ...(vectors ? { retrieveVectors: true } : {}),
        });
        docs.push(...page.results);
        if (page.results.length < 1_000) return docs;
      }
    } catch (error) {
      // A store whose first product was never indexed has no index yet: no documents.
      if (error instanceof MeilisearchApiError && error.cause?.code === 'index_not_found') return docs;
      throw error;
    }
  }
}
