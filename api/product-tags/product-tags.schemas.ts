/** DTOs of the product tags area. */
import { pendingDto } from '../http/route';

export const CreateProductTagDto = pendingDto('CreateProductTagDto');
export const UpdateProductTagDto = pendingDto('UpdateProductTagDto');
export const AssignProductTagDto = pendingDto('AssignProductTagDto');
