/** `svc env add | list | use | remove`: the environments (profiles) every command can pick with --env. */
import type { Command } from 'commander';
import { CliError } from '../cli-error';
import { checkEnvName, loadConfig, normaliseUrl, saveConfig, updateProfile } from '../config-store';
import { json, out } from '../output';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function addEnvCommands(program: Command): void {
  const env = program.command('env').description('environments: named instances with their credentials and default store');

  env
    .command('add')
    .description('create or replace an environment')
    .argument('<name>', 'letters, digits, _, . and -')
    .requiredOption('--url <url>', "the instance's URL")
    .option('--token <token>', 'an access token or a store API key (else: svc login --env <name>)')
    .option('--store <id>', 'the store commands use by default')
    .option('--use', 'make it the current environment')
    .action((name: string, opts: { url: string; token?: string; store?: string; use?: boolean }) => {
      checkEnvName(name);
      const url = normaliseUrl(opts.url);
      if (opts.store && !UUID.test(opts.store)) throw new CliError('--store is a store id (a UUID).', 2);
      if (opts.token !== undefined && !/^[\x21-\x7e]{10,4096}$/.test(opts.token)) throw new CliError('--token is not a token.', 2);
      updateProfile(
        name,
        () => ({ url, ...(opts.token ? { accessToken: opts.token } : {}), ...(opts.store ? { storeId: opts.store } : {}) }),
        Boolean(opts.use),
      );
      out(`Environment "${name}" → ${url}${loadConfig().current === name ? ' (current)' : ''}`);
    });

  env
    .command('list')
    .description('the environments; * marks the current one')
    .option('--json', 'print them as JSON (without tokens)')
    .action((opts: { json?: boolean }) => {
      const config = loadConfig();
      const rows = Object.entries(config.envs).map(([name, p]) => ({
        name,
        current: name === config.current,
        url: p.url,
        storeId: p.storeId ?? null,
        signedIn: Boolean(p.accessToken),
        email: p.email ?? null,
      }));
      if (opts.json) return json(rows);
      if (!rows.length) return out('No environments yet: svc env add <name> --url <url> --token <token>');
      for (const r of rows)
        out(
          `${r.current ? '*' : ' '} ${r.name.padEnd(16)} ${r.url}  ${r.signedIn ? `signed in${r.email ? ` as ${r.email}` : ''}` : 'not signed in'}${r.storeId ? `  store ${r.storeId}` : ''}`,
        );
    });

  env
    .command('use')
    .description('make an environment the current one')
    .argument('<name>')
    .action((name: string) => {
      const config = loadConfig();
      if (!config.envs[name]) throw new CliError(`There is no environment "${name}" (svc env list shows them).`);
      config.current = name;
      saveConfig(config);
      out(`Now using "${name}" (${config.envs[name]!.url}).`);
    });

  env
    .command('remove')
    .description('delete an environment and its credentials')
    .argument('<name>')
    .action((name: string) => {
      const config = loadConfig();
      if (!config.envs[name]) throw new CliError(`There is no environment "${name}".`);
      delete config.envs[name];
      if (config.current === name) config.current = Object.keys(config.envs)[0] ?? null;
      saveConfig(config);
      out(`Removed "${name}".`);
    });
}
