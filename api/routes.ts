/**
 * Every operation of the specification, gathered from the area route tables. The router, the
 * OpenAPI document and the route-table fixture test all read this one list.
 */
import type { RouteDef } from './http/route';
import { importExtensionOperationIds, importRoutes } from './imports/imports.routes';
import { orderExtensionOperationIds, orderRoutes } from './orders/orders.routes';
import { sandboxExtensionOperationIds, sandboxRoutes } from './sandbox/sandbox.routes';
import { webhookExtensionOperationIds, webhookRoutes } from './webhooks/webhooks.routes';
import { document2Routes } from './routes-document2';
import { document3Routes } from './routes-document3';

/** Document 2's first group, "Sandbox and import", listed with its /api/v1 prefix (ruling 1). */
const sandboxAndImportRoutes: RouteDef[] = [...orderRoutes, ...webhookRoutes, ...importRoutes, ...sandboxRoutes];

export const allRoutes: RouteDef[] = [...sandboxAndImportRoutes, ...document2Routes, ...document3Routes];

/**
 * Operations beyond the specification's listing (extensions such as the progress of an import job);
 * each says "Extension" in its description. The route-table and OpenAPI tests allow exactly these.
 */
export const extensionOperationIds: ReadonlySet<string> = new Set<string>([...importExtensionOperationIds, ...webhookExtensionOperationIds, ...orderExtensionOperationIds, ...sandboxExtensionOperationIds]);
