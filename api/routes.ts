/**
 * Every operation of the specification, gathered from the area route tables. The router, the
 * OpenAPI document and the route-table fixture test all read this one list.
 */
import type { RouteDef } from './http/route';
import { importRoutes } from './imports/imports.routes';
import { orderRoutes } from './orders/orders.routes';
import { webhookRoutes } from './webhooks/webhooks.routes';
import { document2Routes } from './routes-document2';
import { document3Routes } from './routes-document3';

/** Document 2's first group, "Sandbox and import", listed with its /api/v1 prefix (ruling 1). */
const sandboxAndImportRoutes: RouteDef[] = [...orderRoutes, ...webhookRoutes, ...importRoutes];

export const allRoutes: RouteDef[] = [...sandboxAndImportRoutes, ...document2Routes, ...document3Routes];
