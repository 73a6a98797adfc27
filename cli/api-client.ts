/**
 * The platform's HTTP API as the command line tools call it: the profile's URL and credentials, a
 * user's access token refreshed with its refresh token (POST /auth/refresh) shortly before it
 * expires or when the API answers 401, and the new pair saved to the profile at once (refresh
 * tokens are single use). A store API key (anything that is not a JWT) goes as `X-API-Key`.
 */
import { loadConfig, selectProfile, updateProfile, type Profile } from './config-store';
import { CliError } from './cli-error';

/** Refresh this long before the access token expires, so a request never carries a dying token. */
const REFRESH_MARGIN_MS = 30_000;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export interface ApiResponse {
  status: number;
  ok: boolean;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  bytes: Buffer;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

export function tokenFields(tokens: TokenPair): Pick<Profile, 'accessToken' | 'refreshToken' | 'accessExpiresAt'> {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    accessExpiresAt: new Date(Date.now() + tokens.expiresIn * 1000).toISOString(),
  };
}

/** One line saying what the API refused: its code and detail, and each field error. */
export function problemText(res: ApiResponse): string {
  const body = res.json as
    { code?: string; detail?: string; title?: string; errors?: Array<{ path?: string; message?: string }> } | undefined;
  if (!body) return `HTTP ${res.status}`;
  const fields = (body.errors ?? []).map((e) => `${e.path ? `${e.path}: ` : ''}${e.message ?? ''}`).filter(Boolean);
  return `${body.detail ?? body.title ?? `HTTP ${res.status}`}${body.code ? ` (${body.code})` : ''}${fields.length ? ` — ${fields.join('; ')}` : ''}`;
}

export class CliApi {
  constructor(
    readonly envName: string,
    private profile: Profile,
  ) {}

  /** The client of the profile chosen by --env (or the current one). */
  static forEnv(env?: string): CliApi {
    const { name, profile } = selectProfile(loadConfig(), env);
    return new CliApi(name, profile);
  }

  get baseUrl(): string {
    return this.profile.url;
  }

  get storeId(): string | undefined {
    return this.profile.storeId;
  }

  /** --store, else the profile's store. */
  store(explicit?: string): string {
    const storeId = explicit ?? this.profile.storeId;
    if (!storeId) throw new CliError(`Which store? Pass --store <id> or set one: svc env add ${this.envName} --url … --store <id>.`, 2);
    return storeId;
  }

  private authHeaders(): Record<string, string> {
    const token = this.profile.accessToken;
    if (!token) return {};
    return JWT.test(token) ? { Authorization: `Bearer ${token}` } : { 'X-API-Key': token };
  }

  private async refresh(): Promise<boolean> {
    const refreshToken = this.profile.refreshToken;
    if (!refreshToken) return false;
    const res = await this.send('POST', '/auth/refresh', { body: { refreshToken } }, false);
    if (!res.ok) {
      // The session ended (expired, revoked, or the token used elsewhere): signing in again is the way out.
      this.profile = updateProfile(this.envName, (p) => ({
        ...(p ?? this.profile),
        accessToken: undefined,
        refreshToken: undefined,
        accessExpiresAt: undefined,
      }));
      throw new CliError(
        `The session of environment "${this.envName}" has ended (${problemText(res)}); run svc login --env ${this.envName}.`,
      );
    }
    this.profile = updateProfile(this.envName, (p) => ({ ...(p ?? this.profile), ...tokenFields(res.json as TokenPair) }));
    return true;
  }

  private async send(
    method: string,
    path: string,
    options: { query?: Record<string, string>; body?: unknown; raw?: { bytes: Buffer; contentType: string }; signal?: AbortSignal },
    authenticated: boolean,
  ): Promise<ApiResponse> {
    const qs = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
    const headers: Record<string, string> = { Accept: 'application/json, application/gzip', ...(authenticated ? this.authHeaders() : {}) };
    let body: string | Buffer | undefined;
    if (options.raw) {
      body = options.raw.bytes;
      headers['Content-Type'] = options.raw.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    let res: Response;
    try {
      res = await fetch(`${this.profile.url}/api/v1${path}${qs}`, { method, headers, body, signal: options.signal });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new CliError(
        `Cannot reach ${this.profile.url} (${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}).`,
      );
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    let json: unknown;
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      try {
        json = JSON.parse(bytes.toString('utf8'));
      } catch {
        json = undefined;
      }
    }
    return { status: res.status, ok: res.ok, headers: res.headers, json, bytes };
  }

  /** A call with the profile's credentials, refreshed when needed. */
  async request(
    method: string,
    path: string,
    options: { query?: Record<string, string>; body?: unknown; raw?: { bytes: Buffer; contentType: string }; signal?: AbortSignal } = {},
  ): Promise<ApiResponse> {
    const expires = this.profile.accessExpiresAt ? Date.parse(this.profile.accessExpiresAt) : undefined;
    if (expires !== undefined && expires - REFRESH_MARGIN_MS < Date.now()) await this.refresh();
    const res = await this.send(method, path, options, true);
    if (res.status === 401 && this.profile.refreshToken && (await this.refresh())) return this.send(method, path, options, true);
    if (res.status === 401)
      throw new CliError(`Not signed in to environment "${this.envName}" (${problemText(res)}); run svc login --env ${this.envName}.`);
    return res;
  }

  /** A call that must succeed (2xx); anything else ends the command with the API's problem. */
  async expect(method: string, path: string, options: Parameters<CliApi['request']>[2] = {}): Promise<ApiResponse> {
    const res = await this.request(method, path, options);
    if (!res.ok) throw new CliError(`${method} ${path}: ${problemText(res)}`);
    return res;
  }
}
