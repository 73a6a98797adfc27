/** DTOs and enums of the product bulk edits area. */
export const BULK_EDIT_ACTIONS = ['UPDATE_PRICE', 'UPDATE_STATUS', 'UPDATE_TAGS', 'UPDATE_CATEGORY', 'ARCHIVE', 'DELETE'] as const;
export const BULK_EDIT_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'] as const;
