/**
 * Campaign segments (docs/marketing.md, "Segments"): a small declarative filter over the customers and
 * orders of one store, compiled to ONE fixed, parameterised query. Every criterion is a parameter that
 * is either null (criterion off) or a value; nothing from the input is ever spliced into the SQL.
 * "Orders" are placed orders (status PLACED; cancelled ones do not count); amounts are summed as
 * numeric in PostgreSQL, never as floats.
 */
export interface Segment {
  spentOver?: number;
  orderedWithinDays?: number;
  notOrderedWithinDays?: number;
  city?: string;
  tag?: string;
  acceptsMarketing?: boolean;
}

/** The customers matching the segment, as `SELECT c.id, … FROM customers c WHERE …` with its parameters. */
export function segmentQuery(
  tenantId: string,
  storeId: string,
  segment: Segment,
  now: Date,
  columns = 'c.id',
): { sql: string; params: unknown[] } {
  const sql = `SELECT ${columns} FROM customers c
    WHERE c.tenant_id = $1 AND c.store_id = $2
      AND c.accepts_marketing = $3
      AND ($4::numeric IS NULL OR (SELECT coalesce(sum(o.total), 0) FROM orders o WHERE o.customer_id = c.id AND o.status = 'PLACED') > $4::numeric)
      AND ($5::int IS NULL OR EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.status = 'PLACED'
                                        AND o.created_at >= $9::timestamptz - make_interval(days => $5::int)))
      AND ($6::int IS NULL OR NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.status = 'PLACED'
                                        AND o.created_at >= $9::timestamptz - make_interval(days => $6::int)))
      AND ($7::text IS NULL
           OR EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND lower(o.shipping_city) = lower($7::text))
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(c.addresses) a WHERE jsonb_typeof(a) = 'object' AND lower(a->>'city') = lower($7::text)))
      AND ($8::text IS NULL OR $8::text = ANY (c.tags))`;
  const params = [
    tenantId,
    storeId,
    segment.acceptsMarketing ?? true,
    segment.spentOver === undefined ? null : String(segment.spentOver),
    segment.orderedWithinDays ?? null,
    segment.notOrderedWithinDays ?? null,
    segment.city ?? null,
    segment.tag ?? null,
    now,
  ];
  return { sql, params };
}
