/** The long descriptions of the categories route table (categories.routes.ts), kept out of its rows. */

export const access =
  "Any member of the tenant, or an API key of the store with the scope of this tag. Another tenant's store or category answers 404.";

export const audited =
  'Each changed category gets one audit entry and one outbox row (queue index); a write that changes nothing records neither.';

export const LIST_DESCRIPTION = `${access} The whole tree as a flat list, depth-first: each parent, then its children ordered by position (ties by name). depth is 0 for roots; path lists the ancestors' slugs and its own.`;

export const CREATE_DESCRIPTION = `${access} A taken slug answers 409 slug_taken; a parent that is not a category of the store 400 invalid_parent. Without a slug one is derived from the name (-2, -3, … until free); without a position the category goes after its last sibling. ${audited}`;

export const EXPORT_DESCRIPTION = `${access} Columns: slug, name, parentSlug, position, isActive, description, imageUrl; parents before children. Cells that a spreadsheet would read as a formula get a leading apostrophe (the import removes it).`;

export const UPDATE_DESCRIPTION = `${access} Replaces the editable fields: name is required; an omitted description, imageUrl or parentId becomes null (a root category) and an omitted isActive true; an omitted slug is kept, and an omitted position is kept while the parent stays (after the last sibling when it moves). Moving a category under itself or one of its descendants answers 400 category_cycle; a taken slug 409 slug_taken. ${audited}`;

export const DELETE_DESCRIPTION = `${access} Refuses a category that has child categories (409 category_has_children): move or delete the children first; nothing is re-parented implicitly. The category's attributes are deleted with it. ${audited}`;

export const REORDER_DESCRIPTION = `${access} ids must be exactly the children of parentId (null: the root categories), each once, in the new order (else 400 reorder_mismatch); they get positions 0, 1, 2, … ${audited}`;

export const IMPORT_DESCRIPTION = `${access} The export's layout: slug (required, the key: create or update, case-insensitively), name (required), parentSlug (empty: root; else a category of the file or the store, else rows[N].parentSlug is invalid), position (empty: kept while the parent stays, else after the last sibling), isActive (true/false, empty: true), description, imageUrl (empty: cleared). Rows may come in any order; parents are resolved within the file, and parents that would form a cycle answer 400 category_cycle. Every row is validated first: any bad row answers 400 listing rows[N].column (N counts data rows from 1) and nothing is written; otherwise all rows are written in one transaction. At most 5000 rows (413) within the JSON body limit. Answers the counts of created, updated and unchanged categories. ${audited}`;

export const SET_DESCRIPTION = `${access} Replaces the whole set; position is the index in the list. An attribute whose name stays (case-insensitively) keeps its id; the others are deleted or created. values are required for enum (1 to 200 distinct) and forbidden for the other types. A change records one audit entry (category.set_attributes, with the lists before and after) and one outbox row for the category; the same set again records neither.`;

export const VALIDATE_PRODUCT_DESCRIPTION = `${access} Reports the required attributes the product lacks, values of the wrong type or outside the allowed values, and values no category of the product defines; changes nothing. Publishing refuses a product with missing required attributes (400 missing_required_attributes).`;
