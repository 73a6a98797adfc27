/** DTOs of the jobs area (queue administration). */
import Joi from 'joi';
import { dto } from '../http/route';

const count = () => Joi.number().integer().min(0).required();

const QueueItem = Joi.object({
  name: Joi.string().required().description('The bee-queue queue name (index, vision, jobs, webhooks, import, export).'),
  paused: Joi.boolean().required().description('Paused from this console: workers take none of its jobs until it is resumed.'),
  counts: Joi.object({
    waiting: count(),
    active: count().description('Jobs being processed (on a paused queue: jobs a worker holds until the queue is resumed).'),
    succeeded: count().description('Jobs finished successfully since the queue was created (finished jobs themselves are not kept).'),
    failed: count().description('Failed jobs kept for retry or deletion (the outbox also delivers their rows again after a back-off).'),
    delayed: count(),
  }).required(),
}).label('QueueItem');

const JobItem = Joi.object({
  id: Joi.string().required().description('The bee-queue job id: <aggregate type>:<aggregate id>.'),
  status: Joi.string().valid('active', 'waiting', 'delayed', 'failed').required(),
  aggregateType: Joi.string().allow(null).required(),
  aggregateId: Joi.string().allow(null).required(),
  tenantId: Joi.string().allow(null).required(),
  createdAt: Joi.string().isoDate().allow(null).required(),
  error: Joi.string().allow(null).required().description('The last failure (first line), for failed jobs.'),
}).label('QueueJobItem');

export const QueueList = dto('QueueList', Joi.object({ items: Joi.array().items(QueueItem).required() }));
export const QueueDetail = dto('QueueDetail', QueueItem);
export const QueueJobList = dto('QueueJobList', Joi.object({ items: Joi.array().items(JobItem).max(100).required() }));
export const QueueJob = dto('QueueJob', JobItem);
export const QueueJobRemoved = dto(
  'QueueJobRemoved',
  Joi.object({ removed: Joi.boolean().valid(true).required(), job: JobItem.required() }),
);
