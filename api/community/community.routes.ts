/**
 * Community: public discussion reads, writes by signed-in users, and moderation by platform staff.
 */
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { int, oneOf, positiveInt, text, uuid } from '../http/schema-types';
import { IdsBodyDto } from '../collections/collections.schemas';
import type { InputOf } from '../http/typed-schema';
import {
  CommunityCategoryListResponse,
  CommunityCategoryResponse,
  CommunityCommentListResponse,
  CommunityCommentResponse,
  CommunityDiscussionListResponse,
  CommunityDiscussionResponse,
  CommunityModerationCommentListResponse,
  CommunityModerationCommentResponse,
  CommunityModerationDiscussionListResponse,
  CommunityModerationDiscussionResponse,
  CommunityReportListResponse,
  CommunityReportResponse,
  CommunityVoteResponse,
  COMMUNITY_REPORT_STATUSES,
  CreateCommentDto,
  CreateCommunityCategoryDto,
  CreateCommunityReportDto,
  CreateDiscussionDto,
  DISCUSSION_SORTS,
  DISCUSSION_STATUSES,
  ModerateCommentDto,
  ModerateDiscussionDto,
  ResolveCommunityReportDto,
  UpdateCommunityCategoryDto,
  VoteDto,
  type CommunityReportStatus,
  type DiscussionSort,
  type DiscussionStatus,
} from './community.schemas';
import { createCategory, deleteCategory, listCategories, reorderCategories, updateCategory } from './community-categories.service';
import { createDiscussion, getDiscussion, listDiscussions, recordView } from './discussions.service';
import { createComment, listDiscussionComments } from './comments.service';
import { vote } from './votes.service';
import { createReport, listReports, resolveReport } from './reports.service';
import {
  listModerationComments,
  listModerationDiscussions,
  moderateComment,
  moderateDiscussion,
  purgeDiscussion,
} from './moderation.service';

type Params = Record<string, string>;
/** Moderation: platform admins and support agents; sales reps have no part in it. */
const MODERATORS = ['platform_admin', 'support_agent'] as const;
/** The categories are the platform's structure: platform admins only. */
const ADMINS = ['platform_admin'] as const;

const WRITERS =
  'Any signed-in user: members of a tenant in any role (owner, admin, staff) and platform staff; API keys answer 403 api_key_not_allowed.';

export const communityRoutes = defineRoutes({ tag: 'community', auth: 'user', platformRoles: MODERATORS }, [
  {
    operationId: 'community.listCategories',
    method: 'GET',
    path: '/community/categories',
    auth: 'public',
    summary: 'Community categories in display order',
    description: 'Every category (at most 1,000) with its number of published discussions, in the order platform admins set.',
    response: CommunityCategoryListResponse,
    status: 200,
    handler: (req: RouteRequest) => listCategories(req.context),
  },
  {
    operationId: 'community.listDiscussions',
    method: 'GET',
    path: '/community/discussions',
    auth: 'public',
    summary: 'Published discussions, optionally of one category',
    description:
      'The specification does not type these parameters: categorySlug is 1 to 120 characters (an unknown one is 404 community_category_not_found); sort is newest (creation), active (latest activity: creation or latest comment) or top (score = upvotes - downvotes, then newest), default newest; limit is 1 to 100, default 50. Pinned discussions come first in every sort. The list has no cursor (the specification lists none): it answers at most limit items. Hidden and deleted discussions never appear.',
    query: {
      categorySlug: listedRequired(text(1, 120)),
      sort: listedRequired(oneOf(DISCUSSION_SORTS).default('newest')),
      limit: listedRequired(positiveInt(100).default(50)),
    },
    response: CommunityDiscussionListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) =>
      listDiscussions(req.context, req.query as { categorySlug?: string; sort: DiscussionSort; limit: number }),
  },
  {
    operationId: 'community.createDiscussion',
    method: 'POST',
    path: '/community/discussions',
    summary: 'Start a discussion',
    description: `${WRITERS} At most 5 discussions per author per hour (429 with Retry-After).`,
    body: CreateDiscussionDto,
    response: CommunityDiscussionResponse,
    status: 201,
    problems: [429],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof CreateDiscussionDto>>) => createDiscussion(req.context, req.body),
  },
  {
    operationId: 'community.getDiscussion',
    method: 'GET',
    path: '/community/discussions/{slug}',
    auth: 'public',
    summary: 'One published discussion by its slug',
    description:
      'A hidden or deleted discussion answers 404 discussion_not_found, like one that never existed. Reading does not count a view (POST …/view does). With a bearer token myVote is the caller’s vote.',
    response: CommunityDiscussionResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getDiscussion(req.context, req.params.slug!),
  },
  {
    operationId: 'community.listDiscussionComments',
    method: 'GET',
    path: '/community/discussions/{slug}/comments',
    auth: 'public',
    summary: 'Published comments of a discussion',
    description:
      'Top-level comments oldest first, each with its replies (one level deep). Hidden comments never appear, nor the replies under a hidden comment. A hidden or deleted discussion answers 404.',
    response: CommunityCommentListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listDiscussionComments(req.context, req.params.slug!),
  },
  {
    operationId: 'community.recordView',
    method: 'POST',
    path: '/community/discussions/{slug}/view',
    auth: 'public',
    summary: 'Count a view of a discussion',
    description:
      'Counts one view per viewer per 24 hours: the viewer is the signed-in user (bearer token), else the client address and user agent. Repeated calls within the period answer 204 and count nothing. At most 300 calls per client address per minute (429).',
    status: 204,
    problems: [429],
    handler: async (req: RouteRequest<Params>) => {
      await recordView(req.context, req.params.slug!);
      return undefined;
    },
  },
  {
    operationId: 'community.createComment',
    method: 'POST',
    path: '/community/discussions/{id}/comments',
    summary: 'Comment on a discussion',
    description: `${WRITERS} A locked discussion answers 409 discussion_locked; a hidden or deleted one 404. At most 20 comments per author per 10 minutes (429).`,
    body: CreateCommentDto,
    response: CommunityCommentResponse,
    status: 201,
    problems: [409, 429],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof CreateCommentDto>>) => createComment(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'community.voteDiscussion',
    method: 'POST',
    path: '/community/discussions/{id}/vote',
    summary: 'Vote on a discussion',
    description: `${WRITERS} One vote per user: 1 or -1 replaces the caller's vote, 0 withdraws it. Answers the counts after the vote. At most 120 votes per user per minute (429).`,
    body: VoteDto,
    response: CommunityVoteResponse,
    status: 200,
    problems: [429],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof VoteDto>>) =>
      vote(req.context, 'discussion', req.params.id!, req.body.value as -1 | 0 | 1),
  },
  {
    operationId: 'community.voteComment',
    method: 'POST',
    path: '/community/comments/{id}/vote',
    summary: 'Vote on a comment',
    description: `${WRITERS} One vote per user: 1 or -1 replaces the caller's vote, 0 withdraws it. A comment the public cannot see answers 404 comment_not_found. At most 120 votes per user per minute (429).`,
    body: VoteDto,
    response: CommunityVoteResponse,
    status: 200,
    problems: [429],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof VoteDto>>) =>
      vote(req.context, 'comment', req.params.id!, req.body.value as -1 | 0 | 1),
  },
  {
    operationId: 'community.reportDiscussion',
    method: 'POST',
    path: '/community/discussions/{id}/report',
    summary: 'Report a discussion to the moderators',
    description: `${WRITERS} One open report per user and discussion (409 already_reported). At most 20 reports per user per hour (429).`,
    body: CreateCommunityReportDto,
    response: CommunityReportResponse,
    status: 201,
    problems: [409, 429],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof CreateCommunityReportDto>>) =>
      createReport(req.context, 'discussion', req.params.id!, req.body),
  },
  {
    operationId: 'community.reportComment',
    method: 'POST',
    path: '/community/comments/{id}/report',
    summary: 'Report a comment to the moderators',
    description: `${WRITERS} One open report per user and comment (409 already_reported). At most 20 reports per user per hour (429).`,
    body: CreateCommunityReportDto,
    response: CommunityReportResponse,
    status: 201,
    problems: [409, 429],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof CreateCommunityReportDto>>) =>
      createReport(req.context, 'comment', req.params.id!, req.body),
  },
  {
    operationId: 'community.moderationListDiscussions',
    method: 'GET',
    path: '/community/platform/discussions',
    auth: 'platform',
    summary: 'Discussions in every status, for moderation',
    description:
      'Newest first, with the author’s user and tenant, open reports and hidden comments. search matches whole words of the title and body (PostgreSQL full text, simple configuration; quotes, OR and -word work as in web search). cursor is the id of the last item of the previous page (nextCursor). limit has no stated default; 50.',
    query: {
      status: oneOf(DISCUSSION_STATUSES),
      categoryId: uuid(),
      search: text(2, 120),
      cursor: uuid(),
      limit: int(1, 100).default(50),
    },
    response: CommunityModerationDiscussionListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) =>
      listModerationDiscussions(
        req.context,
        req.query as { status?: DiscussionStatus; categoryId?: string; search?: string; cursor?: string; limit: number },
      ),
  },
  {
    operationId: 'community.moderationListComments',
    method: 'GET',
    path: '/community/platform/discussions/{id}/comments',
    auth: 'platform',
    summary: 'Comments of a discussion in every status, for moderation',
    description: 'Every comment of the discussion (in any status), hidden ones included, oldest first: at most 1,000.',
    response: CommunityModerationCommentListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listModerationComments(req.context, req.params.id!),
  },
  {
    operationId: 'community.moderateDiscussion',
    method: 'PATCH',
    path: '/community/platform/discussions/{id}',
    auth: 'platform',
    summary: 'Moderate a discussion',
    description:
      'One action: hide, delete, restore, lock, unlock, pin or unpin (see ModerateDiscussionDto). An action that does not apply to the current state is 409 invalid_moderation.',
    body: ModerateDiscussionDto,
    response: CommunityModerationDiscussionResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof ModerateDiscussionDto>>) =>
      moderateDiscussion(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'community.purgeDiscussion',
    method: 'DELETE',
    path: '/community/platform/discussions/{id}',
    auth: 'platform',
    summary: 'Purge a discussion and its comments for good',
    description:
      'Deletes the discussion in any status with all its comments, votes, reports and view records; it cannot be undone (the audit log keeps what was purged).',
    status: 204,
    handler: async (req: RouteRequest<Params>) => {
      await purgeDiscussion(req.context, req.params.id!);
      return undefined;
    },
  },
  {
    operationId: 'community.moderateComment',
    method: 'PATCH',
    path: '/community/platform/comments/{id}',
    auth: 'platform',
    summary: 'Moderate a comment',
    description: 'hide or restore (see ModerateCommentDto); an action that does not apply is 409 invalid_moderation.',
    body: ModerateCommentDto,
    response: CommunityModerationCommentResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof ModerateCommentDto>>) =>
      moderateComment(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'community.listReports',
    method: 'GET',
    path: '/community/platform/reports',
    auth: 'platform',
    summary: 'Reports of discussions and comments',
    description:
      'Oldest first (the queue order), with the reported discussion and comment and their statuses. cursor is the id of the last item of the previous page (nextCursor). limit has no stated default; 50.',
    query: { status: oneOf(COMMUNITY_REPORT_STATUSES), cursor: uuid(), limit: int(1, 100).default(50) },
    response: CommunityReportListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) =>
      listReports(req.context, req.query as { status?: CommunityReportStatus; cursor?: string; limit: number }),
  },
  {
    operationId: 'community.resolveReport',
    method: 'PATCH',
    path: '/community/platform/reports/{id}',
    auth: 'platform',
    summary: 'Resolve or dismiss a report',
    description:
      'OPEN → RESOLVED or OPEN → DISMISSED, once; a closed report answers 409 report_already_closed. Closing a report does not moderate its target: hide or restore it with the moderation operations.',
    body: ResolveCommunityReportDto,
    response: CommunityReportResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof ResolveCommunityReportDto>>) =>
      resolveReport(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'community.createCategory',
    method: 'POST',
    path: '/community/platform/categories',
    auth: 'platform',
    platformRoles: ADMINS,
    summary: 'Create a community category',
    body: CreateCommunityCategoryDto,
    response: CommunityCategoryResponse,
    status: 201,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof CreateCommunityCategoryDto>>) => createCategory(req.context, req.body),
  },
  {
    operationId: 'community.updateCategory',
    method: 'PATCH',
    path: '/community/platform/categories/{id}',
    auth: 'platform',
    platformRoles: ADMINS,
    summary: 'Update a community category',
    body: UpdateCommunityCategoryDto,
    response: CommunityCategoryResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, InputOf<typeof UpdateCommunityCategoryDto>>) =>
      updateCategory(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'community.deleteCategory',
    method: 'DELETE',
    path: '/community/platform/categories/{id}',
    auth: 'platform',
    platformRoles: ADMINS,
    summary: 'Delete a community category',
    description: 'Only an empty category: one that still holds discussions (in any status) answers 409 community_category_not_empty.',
    status: 204,
    problems: [409],
    handler: async (req: RouteRequest<Params>) => {
      await deleteCategory(req.context, req.params.id!);
      return undefined;
    },
  },
  {
    operationId: 'community.reorderCategories',
    method: 'POST',
    path: '/community/platform/categories/reorder',
    auth: 'platform',
    platformRoles: ADMINS,
    summary: 'Reorder the community categories',
    description:
      'ids lists every category, each once, in the new order (positions 0, 1, 2, …); anything else is 400 community_reorder_mismatch. storeId does not apply here and is ignored.',
    body: IdsBodyDto,
    status: 204,
    handler: async (req: RouteRequest<Params, Params, InputOf<typeof IdsBodyDto>>) => {
      await reorderCategories(req.context, req.body);
      return undefined;
    },
  },
]);
