/**
 * `svc login`: the device flow of the API (POST /auth/cli/device, then POST /auth/cli/token at the
 * server's interval, slowing down when told `slow_down`), or `--token` for CI. The tokens go to the
 * environment's profile (0600); the access token is refreshed by the API client when it expires.
 */
import os from 'node:os';
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { CliApi, problemText, tokenFields, type TokenPair } from '../api-client';
import { CliError } from '../cli-error';
import { checkEnvName, loadConfig, normaliseUrl, updateProfile } from '../config-store';
import { info, out } from '../output';
import { envOption } from '../program';

const SLOW_DOWN_STEP_SECONDS = 5;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens the page in the desktop's browser when there is a desktop; a failure is not an error (the URL is printed). */
function openBrowser(url: string): void {
  const desktop =
    process.platform === 'darwin' || process.platform === 'win32' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  if (!desktop || process.env.CI) return;
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // the URL is on the screen
  }
}

export function addLoginCommand(program: Command): void {
  program
    .command('login')
    .description('sign in: the browser device flow (approve the code shown), or --token for CI')
    .option('--url <url>', "the instance's URL (required the first time for an environment)")
    .option('--token <token>', 'use this access token (or store API key) instead of the device flow, for CI')
    .option('--store <id>', 'the store commands use by default')
    .option('--no-browser', 'do not try to open a browser')
    .action(async (opts: { url?: string; token?: string; store?: string; browser: boolean }, command: Command) => {
      const config = loadConfig();
      const name = checkEnvName(envOption(command) ?? process.env.SVC_ENV ?? config.current ?? 'default');
      const existing = config.envs[name];
      const url = opts.url ? normaliseUrl(opts.url) : existing?.url;
      if (!url) throw new CliError(`Which instance? Pass --url <url> (environment "${name}" has none yet).`, 2);
      const base = { ...existing, url, ...(opts.store ? { storeId: opts.store } : {}) };

      if (opts.token !== undefined) {
        if (!/^[\x21-\x7e]{10,4096}$/.test(opts.token)) throw new CliError('--token is not a token.', 2);
        // A user's access token is checked before it is saved; a store API key can only be checked on a store's operations.
        if (JWT.test(opts.token)) {
          const res = await new CliApi(name, { url, accessToken: opts.token }).request('GET', '/auth/account');
          if (!res.ok) throw new CliError(`The instance refused the token: ${problemText(res)}`);
        }
        updateProfile(
          name,
          () => ({ ...base, accessToken: opts.token, refreshToken: undefined, accessExpiresAt: undefined, email: undefined }),
          true,
        );
        out(`Signed in to ${url} with a token (environment "${name}").`);
        return;
      }

      const anonymous = new CliApi(name, { url });
      const clientName = `svc on ${os.hostname()}`.slice(0, 100);
      const started = await anonymous.request('POST', '/auth/cli/device', { body: { clientName } });
      if (!started.ok) throw new CliError(`Cannot start signing in: ${problemText(started)}`);
      const device = started.json as {
        deviceCode: string;
        userCode: string;
        verificationUri: string;
        verificationUriComplete: string;
        expiresIn: number;
        interval: number;
      };
      out(`To sign in, open ${device.verificationUri} and enter the code ${device.userCode}`);
      out(`  (or open ${device.verificationUriComplete})`);
      if (opts.browser) openBrowser(device.verificationUriComplete);
      info('Waiting for approval…');

      let interval = device.interval;
      const deadline = Date.now() + device.expiresIn * 1000;
      for (;;) {
        await sleep(interval * 1000);
        if (Date.now() > deadline) throw new CliError('The code expired before it was approved; run svc login again.');
        const res = await anonymous.request('POST', '/auth/cli/token', { body: { deviceCode: device.deviceCode } });
        if (res.ok) {
          const tokens = res.json as TokenPair & { user: { email?: string } };
          updateProfile(name, () => ({ ...base, ...tokenFields(tokens), email: tokens.user?.email }), true);
          out(`Signed in to ${url} as ${tokens.user?.email ?? 'you'} (environment "${name}").`);
          return;
        }
        const code = (res.json as { code?: string } | undefined)?.code;
        if (code === 'authorization_pending') continue;
        if (code === 'slow_down') {
          interval += SLOW_DOWN_STEP_SECONDS;
          continue;
        }
        if (res.status === 429) {
          interval = Math.max(interval, Number(res.headers.get('retry-after')) || interval + SLOW_DOWN_STEP_SECONDS);
          continue;
        }
        if (code === 'access_denied') throw new CliError('The request was denied.');
        if (code === 'expired_token') throw new CliError('The code expired before it was approved; run svc login again.');
        throw new CliError(`Signing in failed: ${problemText(res)}`);
      }
    });

  program
    .command('whoami')
    .description('who the environment is signed in as (refreshing the session when its access token expired)')
    .action(async (_opts: object, command: Command) => {
      const api = CliApi.forEnv(envOption(command));
      const account = (await api.expect('GET', '/auth/account')).json as { email?: string; user?: { email?: string } };
      out(`${account.email ?? account.user?.email ?? 'signed in'} on ${api.baseUrl} (environment "${api.envName}")`);
    });

  program
    .command('logout')
    .description("forget the environment's credentials (the session is revoked when it has a refresh token)")
    .action(async (_opts: object, command: Command) => {
      const api = CliApi.forEnv(envOption(command));
      const { profile } = { profile: loadConfig().envs[api.envName]! };
      if (profile.refreshToken)
        await api.request('POST', '/auth/logout', { body: { refreshToken: profile.refreshToken } }).catch(() => undefined);
      updateProfile(api.envName, (p) => ({ url: p!.url, ...(p!.storeId ? { storeId: p!.storeId } : {}) }));
      out(`Signed out of environment "${api.envName}".`);
    });
}
