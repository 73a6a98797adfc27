/**
 * DTOs and enums of the community area (discussions, comments, votes, reports, moderation). The
 * category reorder body, IdsBodyDto, is named first by the catalog operations and lives in the
 * collections area.
 */
import { pendingDto } from '../http/route';

/** Community discussion `status` (the specification's enumerated values). */
export const DISCUSSION_STATUSES = ['PUBLISHED', 'HIDDEN', 'DELETED'] as const;
/** Community report `status` (the specification's enumerated values). */
export const COMMUNITY_REPORT_STATUSES = ['OPEN', 'RESOLVED', 'DISMISSED'] as const;
/**
 * Order of the public discussion list. The specification does not list the values: newest first,
 * most recently active first, or most voted first.
 */
export const DISCUSSION_SORTS = ['newest', 'active', 'top'] as const;

export const CreateDiscussionDto = pendingDto('CreateDiscussionDto');
export const CreateCommentDto = pendingDto('CreateCommentDto');
export const VoteDto = pendingDto('VoteDto');
export const CreateCommunityReportDto = pendingDto('CreateCommunityReportDto');
export const ModerateDiscussionDto = pendingDto('ModerateDiscussionDto');
export const ModerateCommentDto = pendingDto('ModerateCommentDto');
export const ResolveCommunityReportDto = pendingDto('ResolveCommunityReportDto');
export const CreateCommunityCategoryDto = pendingDto('CreateCommunityCategoryDto');
export const UpdateCommunityCategoryDto = pendingDto('UpdateCommunityCategoryDto');
