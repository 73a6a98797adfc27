/**
 * The id of each section of a template: its type, and `<type>-<n>` for the n-th (from 2) section of
 * the same type, so a store's saved settings name one section of one template whatever the theme's
 * files say about it. The storefront and the settings operations use this one rule.
 */
export function sectionIds(types: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return types.map((type) => {
    const n = (seen.get(type) ?? 0) + 1;
    seen.set(type, n);
    return n === 1 ? type : `${type}-${n}`;
  });
}

/** Templates are named by their file in templates/ (without `.json`). */
export const TEMPLATE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const SECTION_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
