/** `svc-theme dev`: the live preview (cli/dev-server.ts) until interrupted. */
import type { Command } from 'commander';
import { CliApi } from '../api-client';
import { CliError } from '../cli-error';
import { normaliseUrl } from '../config-store';
import { startDevServer } from '../dev-server';
import { info, out } from '../output';
import { envOption, parsePort } from '../program';
import { readThemeFolder } from '../theme-files';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function addDevCommand(program: Command): void {
  program
    .command('dev')
    .description('preview the theme locally on sample data (or a real store), reloading the page when a file changes')
    .argument('[folder]', 'the theme folder', '.')
    .option('--port <port>', 'the port to listen on (0: any free port)', '9292')
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .option('--api <url>', "render a real store's data through this instance's public API (with --store)")
    .option('--store <id>', 'the store whose data --api renders (default: the environment’s store)')
    .action(async (folder: string, opts: { port: string; host: string; api?: string; store?: string }, command: Command) => {
      const port = parsePort(opts.port);
      readThemeFolder(folder);
      let api: { url: string; storeId: string } | undefined;
      if (opts.api || opts.store) {
        const url = opts.api ? normaliseUrl(opts.api) : CliApi.forEnv(envOption(command)).baseUrl;
        const storeId = opts.store ?? (opts.api ? undefined : CliApi.forEnv(envOption(command)).storeId);
        if (!storeId || !UUID.test(storeId)) throw new CliError('--api needs --store <id> (a store id, a UUID).', 2);
        api = { url, storeId };
      }
      const server = await startDevServer({ dir: folder, port, host: opts.host, api, log: info });
      out(
        `Previewing ${folder} on ${api ? `store ${api.storeId} of ${api.url}` : 'the sample shop'}: ${server.url}/shop/${server.storeId}`,
      );
      info('Pages reload when a file changes; Ctrl+C stops.');
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void server.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
