/**
 * `svc app dev` and `svc app deploy`: the partner app loop (docs/cli.md, "Apps").
 *
 * - dev: makes sure the app exists (created from app.json when missing), a sandbox to install it on
 *   (the environment's, else a new one: POST /sandbox, its token kept in the profile), installs the
 *   app there (POST /app-store/partner/apps/{slug}/dev-installs: enabled, plus a development webhook
 *   endpoint with a new secret, printed once), then with --forward-to pulls the endpoint's deliveries
 *   (GET /webhooks/endpoints/{id}/forwarding, a long poll, as the sandbox) and POSTs each body unchanged
 *   with its signed headers to the local URL, retrying a failing handler a few times, prints one line
 *   per delivery and reports the outcome. Ctrl-C ends it with exit code 0.
 * - deploy: releases a version (POST /app-store/partner/apps/{slug}/versions).
 */
import type { Command } from 'commander';
import { CliApi, problemText } from '../api-client';
import { CliError } from '../cli-error';
import { loadConfig, selectProfile, updateProfile, type Profile } from '../config-store';
import { info, out } from '../output';
import { envOption } from '../program';
import { readManifest, type AppManifest } from './app-manifest';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG = /^[a-z0-9][a-z0-9-]{0,99}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Tries of one delivery against the local handler before it is reported as failed. */
const FORWARD_TRIES = 3;
const RETRY_DELAY_MS = 500;
const LOCAL_TIMEOUT_MS = 10_000;
const FEED_WAIT_SECONDS = 20;

/** The sandbox `svc app dev` installs on, kept in the environment's profile (a 0600 file). */
interface SandboxProfile {
  token: string;
  storeId: string;
}
type AppProfile = Profile & { sandbox?: SandboxProfile };

interface DevInstall {
  storeId: string;
  endpoint: { id: string; url: string; topics: string[]; secret: string } | null;
}

interface ForwardedDelivery {
  deliveryId: string;
  topic: string;
  body: string;
  headers: Record<string, string>;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

function appSlug(explicit: string | undefined, manifest: AppManifest | null): string {
  const slug = explicit ?? manifest?.slug;
  if (!slug) throw new CliError('Which app? Pass --app <slug> or run in a folder with an app.json.', 2);
  if (!SLUG.test(slug)) throw new CliError(`"${slug}" is not an app slug (lower-case letters, digits and hyphens).`, 2);
  return slug;
}

/** The app, created from the manifest when the partner has none with this slug yet. */
async function ensureApp(api: CliApi, slug: string, manifest: AppManifest | null): Promise<{ id: string; slug: string; name: string }> {
  const found = await api.request('GET', `/app-store/partner/apps/${slug}`);
  if (found.ok) return found.json as { id: string; slug: string; name: string };
  if (found.status !== 404) throw new CliError(`Cannot read the app ${slug}: ${problemText(found)}`);
  if (!manifest || manifest.slug !== slug)
    throw new CliError(`You have no app ${slug} yet; describe it in an app.json (svc app dev creates it from there).`);
  const created = await api.request('POST', '/app-store/partner/apps', { body: manifest });
  if (!created.ok) throw new CliError(`Cannot create the app ${slug}: ${problemText(created)}`);
  info(`Created the app ${slug} (unpublished until svc app deploy --version <version>).`);
  return created.json as { id: string; slug: string; name: string };
}

/** The environment's sandbox (checked against --store), else a new one for `email`, saved in the profile. */
async function ensureSandbox(api: CliApi, store: string | undefined, email: string | undefined): Promise<SandboxProfile> {
  const profile = selectProfile(loadConfig(), api.envName).profile as AppProfile;
  if (store && !UUID.test(store)) throw new CliError('--store is a store id (a UUID).', 2);
  if (profile.sandbox && (!store || store === profile.sandbox.storeId)) return profile.sandbox;
  if (store)
    throw new CliError(
      `Store ${store} is not the sandbox of environment "${api.envName}"; svc app dev installs on a sandbox whose token it holds (leave out --store to create one).`,
    );
  const address = email ?? profile.email;
  if (!address || !EMAIL.test(address)) throw new CliError('A new sandbox needs an e-mail address: pass --email <address>.', 2);
  const created = await new CliApi(api.envName, { url: api.baseUrl }).request('POST', '/sandbox', { body: { email: address } });
  if (!created.ok) throw new CliError(`Cannot create a sandbox: ${problemText(created)}`);
  const sandbox = { token: (created.json as { token: string }).token, storeId: (created.json as { storeId: string }).storeId };
  updateProfile(api.envName, (p) => ({ ...(p ?? profile), sandbox }) as AppProfile);
  info(`Created a sandbox (store ${sandbox.storeId}); its token is kept in environment "${api.envName}".`);
  return sandbox;
}

/** POSTs the delivery unchanged to the local handler; the status, or null when it could not be reached. */
async function postLocally(
  url: string,
  delivery: ForwardedDelivery,
  signal: AbortSignal,
): Promise<{ status: number | null; error: string | null }> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: delivery.headers,
      body: Buffer.from(delivery.body, 'utf8'),
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(LOCAL_TIMEOUT_MS)]),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, error: res.status >= 200 && res.status < 300 ? null : `The local handler answered ${res.status}.` };
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return { status: null, error: `The local handler could not be reached (${cause}).`.slice(0, 1000) };
  }
}

async function forward(sandboxApi: CliApi, endpointId: string, target: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    let feed;
    try {
      feed = await sandboxApi.request('GET', `/webhooks/endpoints/${endpointId}/forwarding`, {
        query: { waitSeconds: String(FEED_WAIT_SECONDS) },
        signal,
      });
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    if (!feed.ok) throw new CliError(`Reading the deliveries failed: ${problemText(feed)}`);
    for (const delivery of (feed.json as { items: ForwardedDelivery[] }).items) {
      if (signal.aborted) return;
      const started = Date.now();
      let result = await postLocally(target, delivery, signal);
      for (let attempt = 2; attempt <= FORWARD_TRIES && result.error && !signal.aborted; attempt += 1) {
        await sleep(RETRY_DELAY_MS * (attempt - 1), signal);
        result = await postLocally(target, delivery, signal);
      }
      if (signal.aborted) return;
      const durationMs = Date.now() - started;
      out(
        `${new Date().toISOString()}  ${delivery.topic}  ${delivery.deliveryId}  → ${result.status ?? 'unreachable'}${result.error ? ` (failed after ${FORWARD_TRIES} tries)` : ''}  ${durationMs} ms`,
      );
      const reported = await sandboxApi.request('POST', `/webhooks/endpoints/${endpointId}/forwarding/${delivery.deliveryId}`, {
        body: { statusCode: result.status, error: result.error, durationMs: Math.min(durationMs, 600_000) },
      });
      if (!reported.ok && reported.status !== 409)
        info(`warning: the outcome of ${delivery.deliveryId} was not recorded: ${problemText(reported)}`);
    }
  }
}

function parseForwardTo(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--forward-to must be a URL (such as http://127.0.0.1:3001/webhooks), not "${value}".`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('--forward-to must be an http(s) URL.', 2);
  return url.toString();
}

export function addAppCommands(program: Command): void {
  const app = program.command('app').description('partner apps: the development loop and version releases');

  app
    .command('dev')
    .description("install the app on a sandbox store and forward that store's webhooks, signed, to a local URL until Ctrl-C")
    .option('--app <slug>', "the app (default: app.json's slug)")
    .option('--forward-to <url>', 'POST each webhook delivery here unchanged (e.g. http://127.0.0.1:3001/webhooks)')
    .option('--store <id>', "the sandbox store to install on (default: the environment's sandbox, else a new one)")
    .option('--email <address>', 'the e-mail address of a new sandbox (default: the environment’s)')
    .option('--manifest <file>', 'the app manifest', undefined)
    .action(
      async (
        opts: { app?: string; forwardTo?: string; store?: string; email?: string; manifest?: string },
        command: Command,
      ): Promise<void> => {
        const target = opts.forwardTo === undefined ? undefined : parseForwardTo(opts.forwardTo);
        const manifest = readManifest(opts.manifest);
        const slug = appSlug(opts.app, manifest);
        const api = CliApi.forEnv(envOption(command));
        const listing = await ensureApp(api, slug, manifest);
        const sandbox = await ensureSandbox(api, opts.store, opts.email);
        const installed = await api.request('POST', `/app-store/partner/apps/${listing.slug}/dev-installs`, {
          body: { sandboxToken: sandbox.token },
        });
        if (!installed.ok) throw new CliError(`Cannot install ${slug} on the sandbox: ${problemText(installed)}`);
        const install = installed.json as DevInstall;
        out(`App: ${listing.slug} (${listing.id})`);
        out(`Store: ${install.storeId}`);
        if (!install.endpoint) {
          out('Webhooks: none (the app lists no webhookTopics).');
          return;
        }
        out(`Webhook endpoint: ${install.endpoint.id} (${install.endpoint.topics.join(', ')})`);
        out(`Signing secret: ${install.endpoint.secret}`);
        if (!target) {
          info('Installed; pass --forward-to <url> to forward the deliveries to your handler.');
          return;
        }
        out(`Forwarding to ${target}; Ctrl+C stops.`);
        const stop = new AbortController();
        const onSignal = (): void => stop.abort();
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        try {
          await forward(
            new CliApi(api.envName, { url: api.baseUrl, accessToken: sandbox.token }),
            install.endpoint.id,
            target,
            stop.signal,
          );
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
        info('Stopped forwarding.');
      },
    );

  app
    .command('deploy')
    .description('release a version of the app (a semantic version newer than the latest); the first release publishes it')
    .requiredOption('--version <version>', 'the semantic version, such as 1.0.0 or 1.1.0-rc.1')
    .option('--app <slug>', "the app (default: app.json's slug)")
    .option('--notes <text>', 'release notes')
    .option('--manifest <file>', 'the app manifest')
    .action(async (opts: { version: string; app?: string; notes?: string; manifest?: string }, command: Command) => {
      const slug = appSlug(opts.app, opts.app ? null : readManifest(opts.manifest));
      const api = CliApi.forEnv(envOption(command));
      const res = await api.request('POST', `/app-store/partner/apps/${slug}/versions`, {
        body: { version: opts.version, ...(opts.notes !== undefined ? { notes: opts.notes } : {}) },
      });
      if (!res.ok) throw new CliError(`The release was refused: ${problemText(res)}`);
      out(`Released ${slug} ${(res.json as { version: string }).version}.`);
    });
}
