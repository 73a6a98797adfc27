import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Community (docs/community.md): the platform-wide forum of merchants. Its tables belong to no
 * tenant (categories are the platform's, discussions are read by everyone); the author's tenant is
 * kept for moderation only. Vote counts live on the discussion and comment rows, changed under the
 * row's lock in the transaction that writes the vote, so they always equal the sum of the votes.
 * A purge deletes the discussion row: comments, votes, reports and view records go with it (ON
 * DELETE CASCADE).
 */
export class Community1795000003500 implements MigrationInterface {
  name = 'Community1795000003500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE community_categories (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
        slug text NOT NULL CHECK (char_length(slug) BETWEEN 1 AND 120),
        description text NULL,
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX community_categories_slug ON community_categories (lower(slug))`);

    await q.query(`
      CREATE TABLE community_discussions (
        id uuid PRIMARY KEY,
        category_id uuid NOT NULL REFERENCES community_categories(id) ON DELETE RESTRICT,
        slug text NOT NULL,
        title text NOT NULL,
        body_format text NOT NULL CHECK (body_format IN ('markdown', 'html')),
        body_html text NOT NULL,
        body_text text NOT NULL,
        author_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        author_tenant_id uuid NULL,
        status text NOT NULL DEFAULT 'PUBLISHED' CHECK (status IN ('PUBLISHED', 'HIDDEN', 'DELETED')),
        locked boolean NOT NULL DEFAULT false,
        pinned boolean NOT NULL DEFAULT false,
        upvotes integer NOT NULL DEFAULT 0 CHECK (upvotes >= 0),
        downvotes integer NOT NULL DEFAULT 0 CHECK (downvotes >= 0),
        view_count bigint NOT NULL DEFAULT 0,
        last_activity_at timestamptz NOT NULL DEFAULT now(),
        moderated_at timestamptz NULL,
        moderated_by uuid NULL,
        moderation_reason text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple', title || ' ' || body_text)) STORED
      )`);
    await q.query(`CREATE UNIQUE INDEX community_discussions_slug ON community_discussions (slug)`);
    await q.query(`CREATE INDEX community_discussions_category ON community_discussions (category_id, status, created_at DESC)`);
    await q.query(`CREATE INDEX community_discussions_published ON community_discussions (created_at DESC) WHERE status = 'PUBLISHED'`);
    await q.query(`CREATE INDEX community_discussions_status ON community_discussions (status, id DESC)`);
    await q.query(`CREATE INDEX community_discussions_search ON community_discussions USING gin (search)`);

    await q.query(`
      CREATE TABLE community_comments (
        id uuid PRIMARY KEY,
        discussion_id uuid NOT NULL REFERENCES community_discussions(id) ON DELETE CASCADE,
        parent_id uuid NULL REFERENCES community_comments(id) ON DELETE CASCADE,
        body_format text NOT NULL CHECK (body_format IN ('markdown', 'html')),
        body_html text NOT NULL,
        author_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        author_tenant_id uuid NULL,
        status text NOT NULL DEFAULT 'PUBLISHED' CHECK (status IN ('PUBLISHED', 'HIDDEN')),
        upvotes integer NOT NULL DEFAULT 0 CHECK (upvotes >= 0),
        downvotes integer NOT NULL DEFAULT 0 CHECK (downvotes >= 0),
        moderated_at timestamptz NULL,
        moderated_by uuid NULL,
        moderation_reason text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX community_comments_discussion ON community_comments (discussion_id, created_at, id)`);
    await q.query(`CREATE INDEX community_comments_parent ON community_comments (parent_id) WHERE parent_id IS NOT NULL`);

    // One vote per user and target; the user is not a foreign key, so no delete can change a count behind its back.
    await q.query(`
      CREATE TABLE community_discussion_votes (
        discussion_id uuid NOT NULL REFERENCES community_discussions(id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        value smallint NOT NULL CHECK (value IN (-1, 1)),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (discussion_id, user_id)
      )`);
    await q.query(`
      CREATE TABLE community_comment_votes (
        comment_id uuid NOT NULL REFERENCES community_comments(id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        value smallint NOT NULL CHECK (value IN (-1, 1)),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (comment_id, user_id)
      )`);

    await q.query(`
      CREATE TABLE community_reports (
        id uuid PRIMARY KEY,
        discussion_id uuid NOT NULL REFERENCES community_discussions(id) ON DELETE CASCADE,
        comment_id uuid NULL REFERENCES community_comments(id) ON DELETE CASCADE,
        reporter_user_id uuid NOT NULL,
        reporter_tenant_id uuid NULL,
        reason text NOT NULL CHECK (reason IN ('SPAM', 'ABUSE', 'OFF_TOPIC', 'OTHER')),
        details text NULL,
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'RESOLVED', 'DISMISSED')),
        resolved_at timestamptz NULL,
        resolved_by uuid NULL,
        resolution_note text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'OPEN') = (resolved_at IS NULL))
      )`);
    // A reporter has at most one open report per discussion or comment.
    await q.query(`
      CREATE UNIQUE INDEX community_reports_open_once ON community_reports
        (reporter_user_id, discussion_id, coalesce(comment_id, '00000000-0000-0000-0000-000000000000'::uuid)) WHERE status = 'OPEN'`);
    await q.query(`CREATE INDEX community_reports_status ON community_reports (status, id)`);
    await q.query(`CREATE INDEX community_reports_discussion ON community_reports (discussion_id)`);

    // Who was counted as a viewer of a discussion, and when (a viewer counts again once the period has passed).
    await q.query(`
      CREATE TABLE community_discussion_viewers (
        discussion_id uuid NOT NULL REFERENCES community_discussions(id) ON DELETE CASCADE,
        viewer_key text NOT NULL,
        viewed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (discussion_id, viewer_key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'community_discussion_viewers',
      'community_reports',
      'community_comment_votes',
      'community_discussion_votes',
      'community_comments',
      'community_discussions',
      'community_categories',
    ])
      await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
