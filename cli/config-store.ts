/**
 * The command line tools' profiles ("environments"): where each instance is and the credentials for
 * it, in `config.json` of the user's configuration folder — `$SVC_CONFIG_DIR`, else
 * `$XDG_CONFIG_HOME/svc`, else `~/.config/svc` — the folder 0700 and the file 0600, since it holds
 * tokens. Written to a temporary file first and renamed, so a crash never leaves half a file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError } from './cli-error';

export interface Profile {
  /** The instance's base URL, e.g. https://shop.example.com (the API is under /api/v1). */
  url: string;
  /** A user's access token (JWT) or a store API key. */
  accessToken?: string;
  refreshToken?: string;
  /** When the access token expires (ISO 8601); refreshed a little before. */
  accessExpiresAt?: string;
  /** The store commands use when no --store is given. */
  storeId?: string;
  /** Who signed in, for `svc env list`. */
  email?: string;
}

export interface CliConfig {
  current: string | null;
  envs: Record<string, Profile>;
}

const ENV_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function configDir(): string {
  if (process.env.SVC_CONFIG_DIR) return process.env.SVC_CONFIG_DIR;
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'svc');
}

export function configFile(): string {
  return path.join(configDir(), 'config.json');
}

export function checkEnvName(name: string): string {
  if (!ENV_NAME.test(name)) throw new CliError(`"${name}" is not an environment name: letters, digits, _, . and -, at most 64.`, 2);
  return name;
}

/** The instance's base URL without a trailing slash or /api/v1. */
export function normaliseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`"${raw}" is not a URL (such as https://shop.example.com).`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`"${raw}" is not an http(s) URL.`, 2);
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}`;
}

export function loadConfig(): CliConfig {
  let text: string;
  try {
    text = fs.readFileSync(configFile(), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { current: null, envs: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<CliConfig>;
    return { current: parsed.current ?? null, envs: parsed.envs ?? {} };
  } catch {
    throw new CliError(`${configFile()} is not valid JSON; fix or delete it.`);
  }
}

export function saveConfig(config: CliConfig): void {
  const dir = configDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = configFile();
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}

/** The profile a command uses: --env, else $SVC_ENV, else the current one; its name too. */
export function selectProfile(config: CliConfig, requested?: string): { name: string; profile: Profile } {
  const name = requested ?? process.env.SVC_ENV ?? config.current;
  if (!name) throw new CliError('No environment yet: run `svc login --url <url>` or `svc env add <name> --url <url> --token <token>`.');
  const profile = config.envs[name];
  if (!profile) throw new CliError(`There is no environment "${name}" (svc env list shows them).`);
  return { name, profile };
}

/** Changes one profile and saves at once (re-reading first, so two commands do not undo each other). */
export function updateProfile(name: string, change: (profile: Profile | undefined) => Profile, makeCurrent = false): Profile {
  const config = loadConfig();
  const profile = change(config.envs[name]);
  config.envs[name] = profile;
  if (makeCurrent || !config.current) config.current = name;
  saveConfig(config);
  return profile;
}
