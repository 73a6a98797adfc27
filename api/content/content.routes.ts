/** Content pages and blog posts of a store (document 2, "Collections and content"). */
import { defineRoutes } from '../http/route';
import { storeId, text } from '../http/schema-types';
import { CreatePageDto, CreatePostDto, UpdatePageDto, UpdatePostDto } from './content.schemas';

export const contentRoutes = defineRoutes({ tag: 'cms', auth: 'merchant' }, [
  { operationId: 'content.listPages', method: 'GET', path: '/content/pages', summary: 'Content pages of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'content.createPage', method: 'POST', path: '/content/pages', summary: 'Create a content page', body: CreatePageDto, status: 201 },
  { operationId: 'content.updatePage', method: 'PATCH', path: '/content/pages/{id}', summary: 'Update a content page', body: UpdatePageDto, status: 200 },
  { operationId: 'content.deletePage', method: 'DELETE', path: '/content/pages/{id}', summary: 'Delete a content page', status: 204 },
  {
    operationId: 'content.publicListPages',
    method: 'GET',
    path: '/content/public/stores/{storeId}/pages',
    summary: 'Published content pages of a store (storefront)',
    auth: 'public',
    query: { slug: text(1, 200).description('Only the page with this slug.') },
    status: 200,
  },
  {
    operationId: 'content.publicGetPage',
    method: 'GET',
    path: '/content/public/stores/{storeId}/pages/{slug}',
    summary: 'One published content page by its slug (storefront)',
    auth: 'public',
    status: 200,
  },
  { operationId: 'content.listPosts', method: 'GET', path: '/content/posts', summary: 'Blog posts of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'content.createPost', method: 'POST', path: '/content/posts', summary: 'Create a blog post', body: CreatePostDto, status: 201 },
  { operationId: 'content.updatePost', method: 'PATCH', path: '/content/posts/{id}', summary: 'Update a blog post', body: UpdatePostDto, status: 200 },
  { operationId: 'content.deletePost', method: 'DELETE', path: '/content/posts/{id}', summary: 'Delete a blog post', status: 204 },
  {
    operationId: 'content.publicListPosts',
    method: 'GET',
    path: '/content/public/stores/{storeId}/posts',
    summary: 'Published blog posts of a store (storefront)',
    auth: 'public',
    status: 200,
  },
  {
    operationId: 'content.publicGetPost',
    method: 'GET',
    path: '/content/public/stores/{storeId}/posts/{slug}',
    summary: 'One published blog post by its slug (storefront)',
    auth: 'public',
    status: 200,
  },
]);
