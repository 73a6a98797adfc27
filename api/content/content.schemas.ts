/**
 * DTOs of the content area (pages and blog posts). The specification names the DTOs but not their
 * fields; the fields below are this platform's design, documented in each schema description.
 *
 * Pages and posts share title, slug, bodyHtml, SEO title and description, status and publishedAt;
 * posts add excerpt, author and tags. An entry is visible on the storefront when its status is
 * PUBLISHED and its publishedAt has come (a future publishedAt schedules it).
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto, type Presence, type Typed } from '../http/typed-schema';
import { dateTime, uuid } from '../http/schema-types';

export const CONTENT_STATUSES = ['DRAFT', 'PUBLISHED'] as const;
export const CONTENT_TITLE_MAX = 200;
export const CONTENT_SLUG_MAX = 200;
export const CONTENT_BODY_MAX = 200_000;
export const SEO_TITLE_MAX = 70;
export const SEO_DESCRIPTION_MAX = 320;
export const EXCERPT_MAX = 500;
export const AUTHOR_MAX = 120;
export const TAG_MAX = 50;
export const TAGS_MAX = 20;
export const CONTENT_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const SANITISED_HTML =
  'Rich text as HTML, at most 200,000 characters, sanitised when saved: kept are p, br, hr, headings h1 to h6, strong, b, em, i, u, s, sub, sup, small, mark, span, div, blockquote, q, cite, code, pre, lists (ul, ol, li, dl, dt, dd), tables (table, caption, thead, tbody, tfoot, tr, th, td with colspan and rowspan), figure, figcaption, a (href with http, https, mailto or tel, a relative path or a #fragment; title; target; rel) and img (src with http or https, alt, title, width, height). Every other element is removed with its attributes, keeping its text; script, style, iframe, object and embed are removed with their content; event handler attributes (onclick, …), style attributes and javascript:, data: or vbscript: URLs are dropped. Links that open a new window get rel="noopener noreferrer". The stored (sanitised) HTML is what every read returns.';

const title = () =>
  t.string(Joi.string().trim().min(1).max(CONTENT_TITLE_MAX).description(`1 to ${CONTENT_TITLE_MAX} characters after trimming.`));

export const contentSlug = (): Joi.StringSchema =>
  Joi.string()
    .lowercase()
    .min(1)
    .max(CONTENT_SLUG_MAX)
    .pattern(CONTENT_SLUG_PATTERN, 'slug')
    .messages({ 'string.pattern.name': '{{#label}} must be lowercase letters, digits and single hyphens, such as about-us' })
    .description(
      `Lowercase letters, digits and single hyphens, 1 to ${CONTENT_SLUG_MAX} characters (uppercase is lowered); unique per store among pages (or among posts), case-insensitively: a taken slug is 409 slug_taken. Left out on create: made from the title (accents dropped, anything else a hyphen; -2, -3, … appended until free). The slug never follows later title changes.`,
    );

const bodyHtml = () => t.string(Joi.string().allow('').max(CONTENT_BODY_MAX).description(SANITISED_HTML));
const seoTitle = () =>
  t
    .string(
      Joi.string()
        .trim()
        .min(1)
        .max(SEO_TITLE_MAX)
        .description(`The HTML title for search engines, 1 to ${SEO_TITLE_MAX} characters; null: the storefront uses title.`),
    )
    .nullable();
const seoDescription = () =>
  t
    .string(
      Joi.string()
        .trim()
        .min(1)
        .max(SEO_DESCRIPTION_MAX)
        .description(`The meta description for search engines, 1 to ${SEO_DESCRIPTION_MAX} characters of plain text; null: none.`),
    )
    .nullable();
const status = () => t.oneOf(CONTENT_STATUSES, (s) => s.description('DRAFT (never public) or PUBLISHED (public from publishedAt on).'));
const publishedAt = () =>
  t
    .date(
      dateTime()
        .min('2000-01-01T00:00:00Z')
        .max('2100-01-01T00:00:00Z')
        .description(
          'The publication date (ISO 8601, 2000 to 2100). A PUBLISHED entry appears on the storefront from this moment: a future date schedules it. A PUBLISHED entry without one (left out or null) gets the time of the write it was published in; a DRAFT may keep a planned date.',
        ),
    )
    .nullable();
const excerpt = () =>
  t
    .string(
      Joi.string()
        .trim()
        .min(1)
        .max(EXCERPT_MAX)
        .description(`Plain-text summary for post lists, 1 to ${EXCERPT_MAX} characters; null: none.`),
    )
    .nullable();
const author = () =>
  t
    .string(
      Joi.string().trim().min(1).max(AUTHOR_MAX).description(`The author's name as shown, 1 to ${AUTHOR_MAX} characters; null: none.`),
    )
    .nullable();
const tags = () =>
  t.array(
    t.string(Joi.string().trim().min(1).max(TAG_MAX)),
    Joi.array()
      .max(TAGS_MAX)
      .unique((a: string, b: string) => a.toLowerCase() === b.toLowerCase())
      .description(
        `0 to ${TAGS_MAX} tags, each 1 to ${TAG_MAX} characters after trimming, distinct case-insensitively; kept in the order given.`,
      ),
  );

const common = {
  title: title(),
  slug: t.string(contentSlug()),
  bodyHtml: bodyHtml(),
  seoTitle: seoTitle(),
  seoDescription: seoDescription(),
  status: status(),
  publishedAt: publishedAt(),
};
const postOnly = { excerpt: excerpt(), author: author(), tags: tags() };

const createDefaults = {
  title: title().required(),
  bodyHtml: bodyHtml().default(''),
  status: status()
    .default('DRAFT')
    .rules((s) => s.description('Defaults to DRAFT. DRAFT (never public) or PUBLISHED (public from publishedAt on).')),
};

export const CreatePageDto = typedDto(
  'CreatePageDto',
  t
    .object({ storeId: t.storeId(), ...common, ...createDefaults })
    .rules((o) => o.description('A content page of the store (about us, shipping policy, …).')),
);

export const CreatePostDto = typedDto(
  'CreatePostDto',
  t
    .object({ storeId: t.storeId(), ...common, ...postOnly, ...createDefaults, tags: tags().default([]) })
    .rules((o) => o.description('A blog post of the store.')),
);

const updateOf = <V>(name: string, object: Typed<V, Presence, Joi.ObjectSchema>, what: string) =>
  typedDto(
    name,
    object.rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description(
          `Any subset of the fields of a ${what} (at least one); null clears an optional field. The store cannot change; the slug changes only when given.`,
        ),
    ),
  );

export const UpdatePageDto = updateOf('UpdatePageDto', t.object(common), 'page');
export const UpdatePostDto = updateOf('UpdatePostDto', t.object({ ...common, ...postOnly }), 'post');

const entryKeys = {
  id: uuid().required(),
  storeId: uuid().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  bodyHtml: Joi.string().allow('').required().description('The sanitised HTML.'),
  seoTitle: Joi.string().allow(null).required(),
  seoDescription: Joi.string().allow(null).required(),
  status: Joi.string()
    .valid(...CONTENT_STATUSES)
    .required(),
  publishedAt: dateTime().allow(null).required(),
  live: Joi.boolean().required().description('Whether the storefront shows it now: PUBLISHED and publishedAt has come.'),
  scheduled: Joi.boolean().required().description('PUBLISHED with a publishedAt still to come.'),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
};
const postKeys = {
  excerpt: Joi.string().allow(null).required(),
  author: Joi.string().allow(null).required(),
  tags: Joi.array().items(Joi.string()).required(),
};

const PageItem = Joi.object(entryKeys).label('ContentPageItem');
const PostItem = Joi.object({ ...entryKeys, ...postKeys }).label('ContentPostItem');
const nextCursor = Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.');

export const ContentPageResponse = dto('ContentPageResponse', PageItem);
export const ContentPostResponse = dto('ContentPostResponse', PostItem);
export const ContentPageListResponse = dto(
  'ContentPageListResponse',
  Joi.object({ items: Joi.array().items(PageItem).required(), nextCursor }),
);
export const ContentPostListResponse = dto(
  'ContentPostListResponse',
  Joi.object({ items: Joi.array().items(PostItem).required(), nextCursor }),
);

const publicKeys = {
  id: uuid().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  seoTitle: Joi.string().allow(null).required(),
  seoDescription: Joi.string().allow(null).required(),
  publishedAt: dateTime().required(),
  updatedAt: dateTime().required(),
};
const publicBody = { bodyHtml: Joi.string().allow('').required().description('The sanitised HTML.') };

const PublicPage = Joi.object({ ...publicKeys, ...publicBody }).label('PublicContentPage');
const PublicPostSummary = Joi.object({ ...publicKeys, ...postKeys }).label('PublicContentPostSummary');
const PublicPost = Joi.object({ ...publicKeys, ...postKeys, ...publicBody }).label('PublicContentPost');

export const PublicContentPageResponse = dto('PublicContentPageResponse', PublicPage);
export const PublicContentPostResponse = dto('PublicContentPostResponse', PublicPost);
export const PublicContentPageListResponse = dto(
  'PublicContentPageListResponse',
  Joi.object({ items: Joi.array().items(PublicPage).required().description('Live pages, newest publication first.'), nextCursor }),
);
export const PublicContentPostListResponse = dto(
  'PublicContentPostListResponse',
  Joi.object({
    items: Joi.array()
      .items(PublicPostSummary)
      .required()
      .description('Live posts without their bodies (read one by slug for it), newest publication first.'),
    nextCursor,
  }),
);
