/** Pieces of Meilisearch filter expressions shared by the text and the visual search. */

/** A Meilisearch filter value: quoted, with quotes and backslashes escaped. */
export function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** `attribute` equal to one of `values` (an array attribute: any of its elements). */
export const inList = (attribute: string, values: string[]): string =>
  values.length === 1 ? `${attribute} = ${quote(values[0]!)}` : `${attribute} IN [${values.map(quote).join(', ')}]`;
