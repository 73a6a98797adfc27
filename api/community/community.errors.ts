/**
 * The error codes of the community area: each code once, with its HTTP status and what it means.
 * Throw sites use `communityError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const COMMUNITY_ERRORS = defineErrorCodes('community', {
  community_category_not_found: { status: 404, description: 'The community category does not exist.' },
  community_category_slug_taken: { status: 409, description: 'Another community category has this slug.' },
  community_category_not_empty: {
    status: 409,
    description: 'The community category still holds discussions (in any status); purge them first.',
  },
  community_category_limit: { status: 409, description: 'The community already has the most categories it may have (1,000).' },
  community_reorder_mismatch: { status: 400, description: 'A reorder must list exactly the community categories, each once.' },
  discussion_not_found: {
    status: 404,
    description: 'The discussion does not exist, or is hidden or deleted (public operations see published discussions only).',
  },
  comment_not_found: {
    status: 404,
    description: 'The comment does not exist, or it (or its discussion) is not published (public operations see published content only).',
  },
  report_not_found: { status: 404, description: 'The community report does not exist.' },
  invalid_reply_parent: {
    status: 400,
    description: '`parentId` is not a published top-level comment of this discussion (replies are one level deep).',
  },
  empty_body: { status: 400, description: 'Nothing is left of the body once it is sanitised (it held only markup that is removed).' },
  discussion_locked: { status: 409, description: 'The discussion is locked by the moderators: it takes no new comments.' },
  comment_limit: { status: 409, description: 'The discussion already has the most comments it may have (1,000).' },
  already_reported: { status: 409, description: 'You already have an open report of this discussion or comment.' },
  invalid_moderation: {
    status: 409,
    description: 'The moderation action does not apply to the current state (e.g. hide a hidden discussion, restore a published one).',
  },
  report_already_closed: { status: 409, description: 'The report is already RESOLVED or DISMISSED; only an OPEN report can be closed.' },
});

export const communityError = COMMUNITY_ERRORS.error;
