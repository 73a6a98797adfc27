/**
 * Votes on discussions and comments (docs/community.md, "Votes and score"): one vote per user and
 * target, 1 or -1; voting again replaces it, 0 withdraws it. The target's row is locked for the
 * transaction that changes the vote and its counts, so concurrent votes are applied one after the
 * other and upvotes/downvotes always equal the votes stored (score = upvotes - downvotes).
 */
import { recordAudit } from '../../storage/audit';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { hitUserLimit } from './community-limits';
import { communityError } from './community.errors';
import { discussionNotFound } from './discussions.service';

type Target = 'discussion' | 'comment';

const TABLES: Record<Target, { votes: string; column: string; rows: string }> = {
  discussion: { votes: 'community_discussion_votes', column: 'discussion_id', rows: 'community_discussions' },
  comment: { votes: 'community_comment_votes', column: 'comment_id', rows: 'community_comments' },
};

/** Locks the published target (a comment also needs its discussion, and a reply its parent, published); 404 otherwise. */
async function lockTarget(tx: RequestContext, target: Target, id: string): Promise<void> {
  if (target === 'discussion') {
    const rows: unknown[] = await tx.manager.query(
      "SELECT 1 FROM community_discussions WHERE id = $1 AND status = 'PUBLISHED' FOR UPDATE",
      [id],
    );
    if (rows.length === 0) throw discussionNotFound();
    return;
  }
  const rows: unknown[] = await tx.manager.query(
    `SELECT 1 FROM community_comments c JOIN community_discussions d ON d.id = c.discussion_id
      WHERE c.id = $1 AND c.status = 'PUBLISHED' AND d.status = 'PUBLISHED'
        AND (c.parent_id IS NULL OR EXISTS (SELECT 1 FROM community_comments p WHERE p.id = c.parent_id AND p.status = 'PUBLISHED'))
      FOR UPDATE OF c`,
    [id],
  );
  if (rows.length === 0) throw communityError('comment_not_found', 'The comment does not exist.');
}

export interface VoteResult {
  targetId: string;
  score: number;
  upvotes: number;
  downvotes: number;
  myVote: number;
}

export async function vote(ctx: RequestContext, target: Target, id: string, value: -1 | 0 | 1): Promise<VoteResult> {
  await hitUserLimit(ctx, 'votesPerUser');
  const userId = ctx.actor.id!;
  const { votes, column, rows } = TABLES[target];
  return inTransaction(ctx, async (tx) => {
    await lockTarget(tx, target, id);
    const [previous] = (await tx.manager.query(`SELECT value FROM ${votes} WHERE ${column} = $1 AND user_id = $2`, [id, userId])) as Array<{
      value: number;
    }>;
    const before = previous?.value ?? 0;
    if (before !== value) {
      if (value === 0) await tx.manager.query(`DELETE FROM ${votes} WHERE ${column} = $1 AND user_id = $2`, [id, userId]);
      else
        await tx.manager.query(
          `INSERT INTO ${votes} (${column}, user_id, value) VALUES ($1, $2, $3)
           ON CONFLICT (${column}, user_id) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
          [id, userId, value],
        );
      const up = (value === 1 ? 1 : 0) - (before === 1 ? 1 : 0);
      const down = (value === -1 ? 1 : 0) - (before === -1 ? 1 : 0);
      await tx.manager.query(`UPDATE ${rows} SET upvotes = upvotes + $2, downvotes = downvotes + $3 WHERE id = $1`, [id, up, down]);
      await recordAudit(tx, {
        action: `community_${target}.vote`,
        resourceType: `community_${target}`,
        resourceId: id,
        before: { value: before },
        after: { value },
      });
    }
    const [counts] = (await tx.manager.query(`SELECT upvotes, downvotes FROM ${rows} WHERE id = $1`, [id])) as Array<{
      upvotes: number;
      downvotes: number;
    }>;
    return {
      targetId: id,
      score: counts!.upvotes - counts!.downvotes,
      upvotes: counts!.upvotes,
      downvotes: counts!.downvotes,
      myVote: value,
    };
  });
}
