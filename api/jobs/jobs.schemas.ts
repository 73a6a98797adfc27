/** DTOs of the jobs area (queue administration). Response shapes are defined when the area is built. */
import { pendingDto } from '../http/route';

export const QueueList = pendingDto('QueueList');
export const QueueDetail = pendingDto('QueueDetail');
