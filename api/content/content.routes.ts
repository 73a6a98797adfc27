/** Content pages and blog posts of a store (docs/commerce.md, "Content pages and posts"). */
import type { ContentKind } from '../../storage/entities/content-entry.entity';
import { defineRoutes, listedRequired, pagedPlainList, type RouteDef, type RouteRequest, type RouteRow } from '../http/route';
import { cursor, oneOf, positiveInt, storeId, text } from '../http/schema-types';
import {
  CONTENT_STATUSES,
  ContentPageListResponse,
  ContentPageResponse,
  ContentPostListResponse,
  ContentPostResponse,
  CreatePageDto,
  CreatePostDto,
  PublicContentPageListResponse,
  PublicContentPageResponse,
  PublicContentPostListResponse,
  PublicContentPostResponse,
  UpdatePageDto,
  UpdatePostDto,
} from './content.schemas';
import {
  createContent,
  deleteContent,
  listContent,
  updateContent,
  type CreateContentInput,
  type ListContentQuery,
  type UpdateContentInput,
} from './content.service';
import { getPublicContent, listPublicContent, type PublicListQuery } from './content-public.service';
import { searchEngineOf } from '../../search/public-search';
import {
  createDescription,
  deleteDescription,
  listDescription,
  PUBLIC_GET_PAGE_DESCRIPTION,
  PUBLIC_GET_POST_DESCRIPTION,
  publicListPagesDescription,
  publicListPostsDescription,
  updateDescription,
} from './content.descriptions';

type Params = Record<string, string>;

const merchantRows = (kind: ContentKind): RouteRow[] => {
  const page = kind === 'PAGE';
  const noun = page ? 'page' : 'post';
  const base = page ? '/content/pages' : '/content/posts';
  const suffix = page ? 'Page' : 'Post';
  const what = page ? 'content page' : 'blog post';
  return [
    {
      operationId: `content.list${suffix}s`,
      method: 'GET',
      path: base,
      summary: page ? 'Content pages of a store' : 'Blog posts of a store',
      description: listDescription(noun, pagedPlainList(50, 100)),
      query: {
        storeId: storeId(),
        status: listedRequired(oneOf(CONTENT_STATUSES)),
        cursor: listedRequired(cursor()),
        limit: listedRequired(positiveInt(100).default(50)),
      },
      response: page ? ContentPageListResponse : ContentPostListResponse,
      status: 200,
      handler: (req: RouteRequest<Params>) => listContent(req.context, kind, req.query as ListContentQuery),
    },
    {
      operationId: `content.create${suffix}`,
      method: 'POST',
      path: base,
      summary: page ? 'Create a content page' : 'Create a blog post',
      description: createDescription(noun, page),
      body: page ? CreatePageDto : CreatePostDto,
      response: page ? ContentPageResponse : ContentPostResponse,
      status: 201,
      handler: (req: RouteRequest<Params, Params, CreateContentInput>) => createContent(req.context, kind, req.body),
    },
    {
      operationId: `content.update${suffix}`,
      method: 'PATCH',
      path: `${base}/{id}`,
      summary: page ? 'Update a content page' : 'Update a blog post',
      description: updateDescription(noun, page),
      body: page ? UpdatePageDto : UpdatePostDto,
      response: page ? ContentPageResponse : ContentPostResponse,
      status: 200,
      handler: (req: RouteRequest<Params, Params, UpdateContentInput>) => updateContent(req.context, kind, req.params.id!, req.body),
    },
    {
      operationId: `content.delete${suffix}`,
      method: 'DELETE',
      path: `${base}/{id}`,
      summary: page ? 'Delete a content page' : 'Delete a blog post',
      description: deleteDescription(noun, page, what),
      status: 204,
      handler: (req: RouteRequest<Params>) => deleteContent(req.context, kind, req.params.id!),
    },
  ];
};

const publicLimit = () => positiveInt(100).default(20);

/** A public content read through the store's public-read cache, kept no longer than until the next scheduled entry goes live. */
async function cachedContent(req: RouteRequest<Params>, kind: ContentKind, compute: () => Promise<unknown>): Promise<unknown> {
  const storeId = req.params.storeId!;
  const [next]: Array<{ ms: number | null }> = await req.context.manager.query(
    `SELECT (extract(epoch FROM min(published_at) - now()) * 1000)::float8 AS ms FROM content_entries WHERE store_id = $1 AND kind = $2 AND status = 'PUBLISHED' AND published_at > now()`,
    [storeId, kind],
  );
  return searchEngineOf(req.context).cachedRead(
    storeId,
    ['content', kind, req.koa.path, req.koa.querystring],
    compute,
    next?.ms ?? undefined,
  );
}

export const contentRoutes: RouteDef[] = [
  ...defineRoutes({ tag: 'cms', auth: 'merchant' }, merchantRows('PAGE')),
  ...defineRoutes({ tag: 'cms', auth: 'public' }, [
    {
      operationId: 'content.publicListPages',
      method: 'GET',
      path: '/content/public/stores/{storeId}/pages',
      summary: 'Published content pages of a store (storefront)',
      description: publicListPagesDescription(pagedPlainList(20, 100)),
      query: { slug: text(1, 200).description('Only the page with this slug (case-insensitive).'), cursor: cursor(), limit: publicLimit() },
      response: PublicContentPageListResponse,
      status: 200,
      handler: (req: RouteRequest<Params>) =>
        cachedContent(req, 'PAGE', () => listPublicContent(req.context, 'PAGE', req.params.storeId!, req.query as PublicListQuery)),
    },
    {
      operationId: 'content.publicGetPage',
      method: 'GET',
      path: '/content/public/stores/{storeId}/pages/{slug}',
      summary: 'One published content page by its slug (storefront)',
      description: PUBLIC_GET_PAGE_DESCRIPTION,
      response: PublicContentPageResponse,
      status: 200,
      handler: (req: RouteRequest<Params>) =>
        cachedContent(req, 'PAGE', () => getPublicContent(req.context, 'PAGE', req.params.storeId!, req.params.slug!)),
    },
  ]),
  ...defineRoutes({ tag: 'cms', auth: 'merchant' }, merchantRows('POST')),
  ...defineRoutes({ tag: 'cms', auth: 'public' }, [
    {
      operationId: 'content.publicListPosts',
      method: 'GET',
      path: '/content/public/stores/{storeId}/posts',
      summary: 'Published blog posts of a store (storefront)',
      description: publicListPostsDescription(pagedPlainList(20, 100)),
      query: { cursor: cursor(), limit: publicLimit() },
      response: PublicContentPostListResponse,
      status: 200,
      handler: (req: RouteRequest<Params>) =>
        cachedContent(req, 'POST', () => listPublicContent(req.context, 'POST', req.params.storeId!, req.query as PublicListQuery)),
    },
    {
      operationId: 'content.publicGetPost',
      method: 'GET',
      path: '/content/public/stores/{storeId}/posts/{slug}',
      summary: 'One published blog post by its slug (storefront)',
      description: PUBLIC_GET_POST_DESCRIPTION,
      response: PublicContentPostResponse,
      status: 200,
      handler: (req: RouteRequest<Params>) =>
        cachedContent(req, 'POST', () => getPublicContent(req.context, 'POST', req.params.storeId!, req.params.slug!)),
    },
  ]),
];
