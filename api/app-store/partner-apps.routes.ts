/**
 * Partner apps (extensions of the app store, partnerAppExtensionOperationIds): a partner account's own
 * app listings, their released versions and development installs on its sandboxes (docs/app-store.md, "Apps").
 * Auth `partner`: merchants and API keys answer 403.
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import { listingIdOrSlugParam } from './app-store.schemas';
import {
  AppVersionListResponse,
  AppVersionResponse,
  CreatePartnerAppDto,
  DevInstallDto,
  DevInstallResponse,
  PartnerAppListResponse,
  PartnerAppResponse,
  partnerAppListQuery,
  ReleaseAppVersionDto,
} from './partner-apps.schemas';
import { createPartnerApp, devInstall, getOwnApp, listOwnApps, PARTNER_APPS_MAX, type CreatePartnerAppInput } from './partner-apps.service';
import { listAppVersions, releaseVersion } from './app-versions.service';

type Params = Record<string, string>;

export const partnerAppExtensionOperationIds = [
  'appStore.createPartnerApp',
  'appStore.listPartnerApps',
  'appStore.getPartnerApp',
  'appStore.releaseAppVersion',
  'appStore.listAppVersions',
  'appStore.devInstall',
] as const;

const appParam = { id: listingIdOrSlugParam.description("The app's id or slug (one of the caller's apps; any other answers 404).") };

/** Spread into the app store table (api/app-store/app-store.routes.ts). */
export const partnerAppRoutes = defineRoutes({ tag: 'app-store', auth: 'partner' }, [
  {
    operationId: 'appStore.createPartnerApp',
    method: 'POST',
    path: '/app-store/partner/apps',
    summary: 'Create an app listing the partner develops (extension)',
    description: `Extension (partner apps). A new app listing owned by the calling partner, free, unpublished until its first released version (POST …/versions). The slug is unique in the whole catalog (409 partner_app_slug_taken); scopes must be scopes of the API (400); at most ${PARTNER_APPS_MAX} apps per partner (409 partner_app_limit).`,
    body: CreatePartnerAppDto,
    response: PartnerAppResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, CreatePartnerAppInput>) => createPartnerApp(req.context, req.body),
  },
  {
    operationId: 'appStore.listPartnerApps',
    method: 'GET',
    path: '/app-store/partner/apps',
    summary: "The partner's own app listings (extension)",
    description: "Extension (partner apps). The calling partner's apps, published or not, in creation order, with their current version.",
    query: partnerAppListQuery,
    response: PartnerAppListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listOwnApps(req.context, req.query as { cursor?: string; limit: number }),
  },
  {
    operationId: 'appStore.getPartnerApp',
    method: 'GET',
    path: '/app-store/partner/apps/{id}',
    summary: "One of the partner's apps, by id or slug (extension)",
    description: "Extension (partner apps). One of the calling partner's apps with its current version; another partner's app answers 404.",
    params: appParam,
    response: PartnerAppResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getOwnApp(req.context, req.params.id!),
  },
  {
    operationId: 'appStore.releaseAppVersion',
    method: 'POST',
    path: '/app-store/partner/apps/{id}/versions',
    summary: 'Release a version of an app (extension)',
    description:
      'Extension (partner apps). Releases a semantic version (semver 2.0.0, pre-release and build metadata allowed); it must be newer by precedence than the latest release (409 app_version_not_newer; build metadata does not count). The release becomes the current version and publishes the listing in the catalog.',
    params: appParam,
    body: ReleaseAppVersionDto,
    response: AppVersionResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, { version: string; notes?: string | null }>) =>
      releaseVersion(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'appStore.listAppVersions',
    method: 'GET',
    path: '/app-store/partner/apps/{id}/versions',
    summary: 'The released versions of an app (extension)',
    description: "Extension (partner apps). Every released version of one of the calling partner's apps, newest first.",
    params: appParam,
    response: AppVersionListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listAppVersions(req.context, req.params.id!),
  },
  {
    operationId: 'appStore.devInstall',
    method: 'POST',
    path: '/app-store/partner/apps/{id}/dev-installs',
    summary: "Install an app for development on one of the partner's sandboxes (extension)",
    description:
      "Extension (partner apps). Enables the app (published or not, without a purchase) on the store of the sandbox whose token is given, and creates or renews the app's development webhook endpoint there (`svc-dev://<slug>`, subscribed to the app's webhookTopics, delivered by pull: GET /webhooks/endpoints/{id}/forwarding with the sandbox token) with a new secret, shown once. The first partner to present a sandbox's token claims it; another partner answers 409 sandbox_claimed_by_other_partner; a token that is not a sandbox's 422 sandbox_token_invalid.",
    params: appParam,
    body: DevInstallDto,
    response: DevInstallResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, { sandboxToken: string }>) =>
      devInstall(req.context, req.params.id!, req.body.sandboxToken),
  },
]);
