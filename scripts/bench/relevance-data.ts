/**
 * The relevance benchmark's data (docs/benchmarks.md, "Relevance"): the labelled product-search CSV
 * (columns id, query, product_title, product_description, median_relevance, relevance_variance;
 * RFC 4180 with embedded newlines), read into products (one per `id`) and judgments (per query, the
 * label of each product judged for it), and the import CSV written from the products.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse';
import { toCsv } from '../../api/http/csv';

export interface LabelledProduct {
  id: string;
  title: string;
  description: string;
}

export interface RelevanceData {
  /** One per `id`, in file order. */
  products: LabelledProduct[];
  /** Distinct queries in the order they first appear. */
  queries: string[];
  /** Per query: product id → median_relevance (1 … 4). */
  judgments: Map<string, Map<string, number>>;
  rows: number;
}

const COLUMNS = ['id', 'query', 'product_title', 'product_description', 'median_relevance'] as const;

/** Reads the labelled CSV; a missing column or a label outside 1 … 4 is an error naming the row. */
export async function readRelevanceData(file: string): Promise<RelevanceData> {
  const products = new Map<string, LabelledProduct>();
  const judgments = new Map<string, Map<string, number>>();
  let rows = 0;
  const parser = fs.createReadStream(file).pipe(parse({ columns: true, bom: true }));
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    rows += 1;
    if (rows === 1) for (const column of COLUMNS) if (!(column in record)) throw new Error(`${file}: no column "${column}" in the header`);
    const id = record.id!.trim();
    const label = Number(record.median_relevance);
    if (!id) throw new Error(`${file}: data row ${rows} has no id`);
    if (!Number.isInteger(label) || label < 1 || label > 4)
      throw new Error(`${file}: data row ${rows} has median_relevance ${record.median_relevance} (expected 1 to 4)`);
    if (!products.has(id)) products.set(id, { id, title: record.product_title!, description: record.product_description ?? '' });
    const query = record.query!;
    let judged = judgments.get(query);
    if (!judged) judgments.set(query, (judged = new Map()));
    judged.set(id, label);
  }
  if (rows === 0) throw new Error(`${file}: no data rows`);
  return { products: [...products.values()], queries: [...judgments.keys()], judgments, rows };
}

/** The handle (= product slug) a labelled product is imported under; `idOfSlug` reverses it. */
export const handleOf = (id: string): string =>
  `cf-${id
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;

/** Writes the products as an import CSV (handle, title, description, status PUBLISHED, price 10.00); returns its size in bytes. */
export function writeImportCsv(file: string, products: readonly LabelledProduct[]): number {
  const columns = ['handle', 'title', 'description', 'status', 'price'].map((header) => ({
    header,
    value: (row: Record<string, string>) => row[header],
  }));
  const records = products.map((p) => ({
    handle: handleOf(p.id),
    title: p.title.trim(),
    description: p.description,
    status: 'PUBLISHED',
    price: '10.00',
  }));
  fs.writeFileSync(file, toCsv(records, columns));
  return fs.statSync(file).size;
}
