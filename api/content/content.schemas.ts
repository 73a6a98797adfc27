/** DTOs of the content area (pages and blog posts). */
import { pendingDto } from '../http/route';

export const CreatePageDto = pendingDto('CreatePageDto');
export const UpdatePageDto = pendingDto('UpdatePageDto');
export const CreatePostDto = pendingDto('CreatePostDto');
export const UpdatePostDto = pendingDto('UpdatePostDto');
