/**
 * DTOs and enums of the community area (discussions, comments, votes, reports, moderation). The
 * category reorder body, IdsBodyDto, is named first by the catalog operations and lives in the
 * collections area. The specification names the DTOs but not their fields; the fields below are
 * this platform's design (docs/community.md), documented in each schema description.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, uuid } from '../http/schema-types';
import { CATALOG_SLUG_MAX, catalogSlug } from '../../domain/slugs';

/** Community discussion `status` (the specification's enumerated values). */
export const DISCUSSION_STATUSES = ['PUBLISHED', 'HIDDEN', 'DELETED'] as const;
export type DiscussionStatus = (typeof DISCUSSION_STATUSES)[number];
/** Community report `status` (the specification's enumerated values). */
export const COMMUNITY_REPORT_STATUSES = ['OPEN', 'RESOLVED', 'DISMISSED'] as const;
export type CommunityReportStatus = (typeof COMMUNITY_REPORT_STATUSES)[number];
/**
 * Order of the public discussion list. The specification does not list the values: newest first,
 * most recently active first, or most voted first.
 */
export const DISCUSSION_SORTS = ['newest', 'active', 'top'] as const;
export type DiscussionSort = (typeof DISCUSSION_SORTS)[number];
/** A comment is published or hidden by a moderator (comments have no DELETED state: a purge removes them with their discussion). */
export const COMMENT_STATUSES = ['PUBLISHED', 'HIDDEN'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];
export const BODY_FORMATS = ['markdown', 'html'] as const;
export const REPORT_REASONS = ['SPAM', 'ABUSE', 'OFF_TOPIC', 'OTHER'] as const;
export const DISCUSSION_ACTIONS = ['hide', 'restore', 'delete', 'lock', 'unlock', 'pin', 'unpin'] as const;
export type DiscussionAction = (typeof DISCUSSION_ACTIONS)[number];
export const COMMENT_ACTIONS = ['hide', 'restore'] as const;
export type CommentAction = (typeof COMMENT_ACTIONS)[number];

export const TITLE_MIN = 3;
export const TITLE_MAX = 200;
export const DISCUSSION_BODY_MAX = 20_000;
export const COMMENT_BODY_MAX = 5_000;
export const CATEGORY_NAME_MAX = 80;
export const CATEGORY_DESCRIPTION_MAX = 500;
export const REASON_TEXT_MAX = 1_000;

const BODY_RULES =
  'Sanitised when saved (docs/community.md, "Bodies"): Markdown is rendered to HTML by a small subset (paragraphs, headings, quotes, lists, code, bold, italic, links; HTML inside Markdown is shown as text); HTML keeps the markup the content pages allow. script, style and iframe go with their content, event handler attributes and javascript: URLs are dropped, every link gets rel="nofollow ugc noopener noreferrer". A body with no text left after sanitising is 400 empty_body. Reads return only the sanitised HTML.';

const body = (max: number) =>
  t.string(
    Joi.string()
      .trim()
      .min(1)
      .max(max)
      .description(`1 to ${max.toLocaleString('en')} characters after trimming. ${BODY_RULES}`),
  );
const format = () =>
  t
    .oneOf(BODY_FORMATS, (s) => s.description('How body is written: markdown (default) or html.'))
    .default('markdown')
    .rules((s) => s.description('How body is written: markdown (default) or html.'));
const moderationReason = () =>
  t.string(
    Joi.string()
      .trim()
      .min(1)
      .max(REASON_TEXT_MAX)
      .description(`Why (kept with the content and in the audit log), 1 to ${REASON_TEXT_MAX} characters.`),
  );

export const CreateDiscussionDto = typedDto(
  'CreateDiscussionDto',
  t
    .object({
      categoryId: t.string(uuid().description('The category to post in (GET /community/categories).')).required(),
      title: t
        .string(Joi.string().trim().min(TITLE_MIN).max(TITLE_MAX).description(`${TITLE_MIN} to ${TITLE_MAX} characters after trimming.`))
        .required(),
      body: body(DISCUSSION_BODY_MAX).required(),
      format: format(),
    })
    .rules((o) =>
      o.description(
        'A new discussion, published at once. Its slug is made from the title (base, base-2, …) and never changes. Rate limited per author (docs/community.md, "Rate limits").',
      ),
    ),
);

export const CreateCommentDto = typedDto(
  'CreateCommentDto',
  t
    .object({
      body: body(COMMENT_BODY_MAX).required(),
      format: format(),
      parentId: t.string(
        uuid().description(
          'Reply to this top-level comment of the same discussion; left out: a top-level comment. Replies are one level deep: a reply to a reply is 400 invalid_reply_parent.',
        ),
      ),
    })
    .rules((o) => o.description('A comment on a published, unlocked discussion (a locked one answers 409 discussion_locked).')),
);

export const VoteDto = typedDto(
  'VoteDto',
  t.object({
    value: t
      .number(
        Joi.number()
          .integer()
          .valid(-1, 0, 1)
          .description("1 up, -1 down, 0 withdraws the caller's vote. One vote per user and target; voting again replaces it."),
      )
      .required(),
  }),
);

export const CreateCommunityReportDto = typedDto(
  'CreateCommunityReportDto',
  t
    .object({
      reason: t.oneOf(REPORT_REASONS, (s) => s.description('SPAM, ABUSE, OFF_TOPIC or OTHER.')).required(),
      details: t.string(
        Joi.string().trim().min(1).max(REASON_TEXT_MAX).description(`What the moderators should know, 1 to ${REASON_TEXT_MAX} characters.`),
      ),
    })
    .rules((o) =>
      o.description('A report to the moderators. A user has at most one OPEN report per discussion or comment (409 already_reported).'),
    ),
);

export const ModerateDiscussionDto = typedDto(
  'ModerateDiscussionDto',
  t.object({
    action: t
      .oneOf(DISCUSSION_ACTIONS, (s) =>
        s.description(
          'hide (PUBLISHED → HIDDEN), delete (PUBLISHED or HIDDEN → DELETED), restore (HIDDEN or DELETED → PUBLISHED), lock / unlock (no new comments while locked), pin / unpin (listed first in every public sort). An action that changes nothing is 409 invalid_moderation.',
        ),
      )
      .required(),
    reason: moderationReason(),
  }),
);

export const ModerateCommentDto = typedDto(
  'ModerateCommentDto',
  t.object({
    action: t
      .oneOf(COMMENT_ACTIONS, (s) =>
        s.description(
          'hide (PUBLISHED → HIDDEN: the comment, and the replies under a top-level comment, leave every public read) or restore (HIDDEN → PUBLISHED). An action that changes nothing is 409 invalid_moderation.',
        ),
      )
      .required(),
    reason: moderationReason(),
  }),
);

export const ResolveCommunityReportDto = typedDto(
  'ResolveCommunityReportDto',
  t.object({
    status: t
      .oneOf(['RESOLVED', 'DISMISSED'] as const, (s) =>
        s.description(
          'RESOLVED (acted upon) or DISMISSED (no action needed). Only an OPEN report can be closed (409 report_already_closed).',
        ),
      )
      .required(),
    note: t.string(
      Joi.string().trim().min(1).max(REASON_TEXT_MAX).description(`The moderator's note, 1 to ${REASON_TEXT_MAX} characters.`),
    ),
  }),
);

const categoryName = () =>
  t.string(Joi.string().trim().min(1).max(CATEGORY_NAME_MAX).description(`1 to ${CATEGORY_NAME_MAX} characters after trimming.`));
const categorySlug = () =>
  t.string(
    catalogSlug()
      .lowercase()
      .min(1)
      .description(
        `Lowercase letters, digits and single hyphens, 1 to ${CATEGORY_SLUG_MAX} characters; unique (409 community_category_slug_taken). Left out on create: made from the name.`,
      ),
  );
const CATEGORY_SLUG_MAX = CATALOG_SLUG_MAX;
const categoryDescription = () =>
  t
    .string(
      Joi.string()
        .trim()
        .min(1)
        .max(CATEGORY_DESCRIPTION_MAX)
        .description(`Plain text, 1 to ${CATEGORY_DESCRIPTION_MAX} characters; null: none.`),
    )
    .nullable();

export const CreateCommunityCategoryDto = typedDto(
  'CreateCommunityCategoryDto',
  t
    .object({ name: categoryName().required(), slug: categorySlug(), description: categoryDescription() })
    .rules((o) => o.description('A new category, placed last. At most 1,000 categories (409 community_category_limit).')),
);

export const UpdateCommunityCategoryDto = typedDto(
  'UpdateCommunityCategoryDto',
  t
    .object({ name: categoryName(), slug: categorySlug(), description: categoryDescription() })
    .rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description('Any of name, slug and description (at least one); null clears the description. Discussions keep their slugs.'),
    ),
);

// Responses.

const author = Joi.object({
  name: Joi.string().allow(null).required().description("The author's name as shown; null when the account no longer exists."),
  staff: Joi.boolean().required().description('Whether the author is platform staff.'),
})
  .label('CommunityAuthor')
  .description("Who wrote it. Neither the author's e-mail address nor their tenant is shown publicly.");

const votes = {
  score: Joi.number().integer().required().description('upvotes - downvotes.'),
  upvotes: Joi.number().integer().min(0).required(),
  downvotes: Joi.number().integer().min(0).required(),
};
const myVote = Joi.number()
  .integer()
  .valid(-1, 0, 1)
  .allow(null)
  .required()
  .description("The caller's vote (1, -1, or 0 for none) when signed in; null for anonymous callers.");

const categoryItem = Joi.object({
  id: uuid().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow(null).required(),
  position: Joi.number().integer().min(0).required(),
  discussionCount: Joi.number().integer().min(0).required().description('Published discussions in the category.'),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('CommunityCategory');

export const CommunityCategoryResponse = dto('CommunityCategoryResponse', categoryItem);
export const CommunityCategoryListResponse = dto(
  'CommunityCategoryListResponse',
  Joi.object({
    items: Joi.array()
      .items(categoryItem)
      .required()
      .description('Every category (at most 1,000), in display order (position, then name).'),
  }),
);

const discussionKeys = {
  id: uuid().required(),
  slug: Joi.string().required(),
  categoryId: uuid().required(),
  categorySlug: Joi.string().required(),
  title: Joi.string().required(),
  excerpt: Joi.string().allow('').required().description('The first 200 characters of the body as plain text.'),
  author: author.required(),
  ...votes,
  commentCount: Joi.number().integer().min(0).required().description('Comments the public sees (published, under a published parent).'),
  viewCount: Joi.number().integer().min(0).required(),
  pinned: Joi.boolean().required(),
  locked: Joi.boolean().required().description('A locked discussion takes no new comments.'),
  createdAt: dateTime().required(),
  lastActivityAt: dateTime().required().description('The newer of its creation and its latest comment.'),
};

const publicDiscussionSummary = Joi.object(discussionKeys).label('CommunityDiscussionSummary');
const publicDiscussion = Joi.object({
  ...discussionKeys,
  bodyHtml: Joi.string().required().description('The sanitised HTML.'),
  myVote,
}).label('CommunityDiscussion');

export const CommunityDiscussionListResponse = dto(
  'CommunityDiscussionListResponse',
  Joi.object({
    items: Joi.array()
      .items(publicDiscussionSummary)
      .required()
      .description('At most limit published discussions (pinned first), without their bodies; read one by slug for it.'),
  }),
);
export const CommunityDiscussionResponse = dto('CommunityDiscussionResponse', publicDiscussion);

const commentKeys = {
  id: uuid().required(),
  discussionId: uuid().required(),
  parentId: uuid().allow(null).required(),
  author: author.required(),
  bodyHtml: Joi.string().required().description('The sanitised HTML.'),
  ...votes,
  createdAt: dateTime().required(),
};
const publicReply = Joi.object({ ...commentKeys, myVote }).label('CommunityReply');
const publicComment = Joi.object({
  ...commentKeys,
  myVote,
  replies: Joi.array().items(publicReply).required().description('Published replies, oldest first.'),
}).label('CommunityComment');

export const CommunityCommentResponse = dto(
  'CommunityCommentResponse',
  Joi.object({ ...commentKeys, myVote }).label('CommunityNewComment'),
);
export const CommunityCommentListResponse = dto(
  'CommunityCommentListResponse',
  Joi.object({
    items: Joi.array()
      .items(publicComment)
      .required()
      .description(
        'Published top-level comments, oldest first, each with its published replies (a discussion holds at most 1,000 comments).',
      ),
  }),
);

export const CommunityVoteResponse = dto(
  'CommunityVoteResponse',
  Joi.object({
    targetId: uuid().required().description('The discussion or comment voted on.'),
    ...votes,
    myVote: Joi.number().integer().valid(-1, 0, 1).required().description("The caller's vote now (0: none)."),
  }),
);

const moderation = {
  moderatedAt: dateTime().allow(null).required(),
  moderatedBy: uuid().allow(null).required().description('The staff member of the latest moderation action.'),
  moderationReason: Joi.string().allow(null).required(),
};
const staffAuthor = {
  authorUserId: uuid().allow(null).required(),
  authorTenantId: uuid().allow(null).required().description("The author's tenant (moderators only); null for platform staff."),
};

const moderationDiscussion = Joi.object({
  ...discussionKeys,
  ...staffAuthor,
  ...moderation,
  status: Joi.string()
    .valid(...DISCUSSION_STATUSES)
    .required(),
  bodyHtml: Joi.string().required(),
  openReportCount: Joi.number()
    .integer()
    .min(0)
    .required()
    .description('OPEN reports of the discussion itself (its comments carry their own).'),
  hiddenCommentCount: Joi.number().integer().min(0).required(),
}).label('CommunityModerationDiscussion');

export const CommunityModerationDiscussionResponse = dto('CommunityModerationDiscussionResponse', moderationDiscussion);
export const CommunityModerationDiscussionListResponse = dto(
  'CommunityModerationDiscussionListResponse',
  Joi.object({
    items: Joi.array().items(moderationDiscussion).required().description('Newest first.'),
    nextCursor: uuid().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);

const moderationComment = Joi.object({
  ...commentKeys,
  ...staffAuthor,
  ...moderation,
  status: Joi.string()
    .valid(...COMMENT_STATUSES)
    .required(),
  openReportCount: Joi.number().integer().min(0).required(),
}).label('CommunityModerationComment');

export const CommunityModerationCommentResponse = dto('CommunityModerationCommentResponse', moderationComment);
export const CommunityModerationCommentListResponse = dto(
  'CommunityModerationCommentListResponse',
  Joi.object({
    items: Joi.array()
      .items(moderationComment)
      .required()
      .description('Every comment of the discussion, hidden ones included, oldest first (at most 1,000).'),
  }),
);

const reportItem = Joi.object({
  id: uuid().required(),
  targetType: Joi.string().valid('DISCUSSION', 'COMMENT').required(),
  discussionId: uuid().required(),
  discussionSlug: Joi.string().required(),
  discussionTitle: Joi.string().required(),
  discussionStatus: Joi.string()
    .valid(...DISCUSSION_STATUSES)
    .required(),
  commentId: uuid().allow(null).required(),
  commentStatus: Joi.string()
    .valid(...COMMENT_STATUSES)
    .allow(null)
    .required(),
  reason: Joi.string()
    .valid(...REPORT_REASONS)
    .required(),
  details: Joi.string().allow(null).required(),
  status: Joi.string()
    .valid(...COMMUNITY_REPORT_STATUSES)
    .required(),
  reporterUserId: uuid().required(),
  reporterTenantId: uuid().allow(null).required(),
  resolvedAt: dateTime().allow(null).required(),
  resolvedBy: uuid().allow(null).required(),
  resolutionNote: Joi.string().allow(null).required(),
  createdAt: dateTime().required(),
}).label('CommunityReport');

export const CommunityReportResponse = dto('CommunityReportResponse', reportItem);
export const CommunityReportListResponse = dto(
  'CommunityReportListResponse',
  Joi.object({
    items: Joi.array().items(reportItem).required().description('Oldest first (the queue order).'),
    nextCursor: uuid().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);
