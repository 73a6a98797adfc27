/**
 * The theme a store's storefront renders (docs/themes.md): its active theme package, else the
 * built-in theme, with the store's saved section settings over each template's. Read through the
 * public API like every storefront page: which package is active on each page (a small answer), the
 * package's source once per package id (compiled templates are kept per package), its assets by
 * content hash at `/shop/<storeId>/theme-assets/<sha256>/<name>`, immutable and cached for a year.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import { sectionIds } from '../api/themes/section-ids';
import { ApiError, apiClientFor, type ApiClient } from './api-client';
import type { SectionRef, ThemeEngine } from './theme-engine';

interface StoreTheme {
  theme: string;
  package: { id: string; checksum: string } | null;
  sectionSettings: Array<{ template: string; sectionId: string; settings: Record<string, unknown> }>;
}

interface SourceFile {
  path: string;
  sha256: string;
  content: string | null;
}

/** Packages compiled at most; the least recently used is dropped past it. */
const MAX_ENGINES = 50;
/** Asset bytes kept in memory at most (the browser caches them for a year anyway). */
const MAX_ASSET_CACHE_BYTES = 32 * 1024 * 1024;

const ASSET_TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  map: 'application/json; charset=utf-8',
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
};

export class StoreThemes {
  private readonly engines = new Map<string, ThemeEngine>();
  private readonly assets = new Map<string, { type: string; body: Buffer }>();
  private assetBytes = 0;

  constructor(private readonly builtIn: ThemeEngine) {}

  /** The engine of the store's theme and the template's sections with the store's saved settings. */
  async forPage(api: ApiClient, storeId: string, template: string): Promise<{ engine: ThemeEngine; sections: SectionRef[] }> {
    const state = (await api.get(`/themes/public/stores/${storeId}/active`)) as StoreTheme;
    let engine = state.package ? await this.packageEngine(api, storeId, state.package) : this.builtIn;
    // A page the package has no template for (the cart, the checkout, …) is the built-in theme's.
    if (engine !== this.builtIn && engine.readText(`templates/${template}.json`) === undefined) engine = this.builtIn;
    const refs = engine.template(template).sections;
    const saved = new Map(state.sectionSettings.filter((s) => s.template === template).map((s) => [s.sectionId, s.settings]));
    const ids = sectionIds(refs.map((r) => r.type));
    return { engine, sections: refs.map((ref, i) => ({ type: ref.type, settings: { ...ref.settings, ...saved.get(ids[i]!) } })) };
  }

  private async packageEngine(api: ApiClient, storeId: string, pkg: { id: string; checksum: string }): Promise<ThemeEngine> {
    const key = `${pkg.id}:${pkg.checksum}`;
    const cached = this.engines.get(key);
    if (cached) {
      this.engines.delete(key);
      this.engines.set(key, cached);
      return cached;
    }
    const source = (await api.get(`/themes/public/stores/${storeId}/packages/${pkg.id}/source`)) as { files: SourceFile[] };
    const texts = new Map<string, string>();
    const hashes = new Map<string, string>();
    for (const f of source.files) {
      if (f.content !== null) texts.set(f.path, f.content);
      if (f.path.startsWith('assets/')) hashes.set(f.path.slice('assets/'.length), f.sha256);
    }
    const engine = this.builtIn.forPackage({
      id: pkg.id,
      files: texts,
      assetUrl: (name) => {
        const sha = hashes.get(name);
        return sha ? `/shop/${storeId}/theme-assets/${sha}/${encodeURIComponent(name)}` : undefined;
      },
    });
    if (this.engines.size >= MAX_ENGINES) this.engines.delete(this.engines.keys().next().value!);
    this.engines.set(key, engine);
    return engine;
  }

  /** `GET /shop/<storeId>/theme-assets/<sha256>/<name>`: an asset of a published package, immutable. */
  addAssetRoute(router: Router): void {
    router.get('/shop/:storeId/theme-assets/:sha/:name', async (ctx: Koa.Context) => {
      const { storeId, sha, name } = ctx.params as Record<string, string>;
      const ext = /\.([a-z0-9]+)$/i.exec(name!)?.[1]?.toLowerCase() ?? '';
      if (!/^[0-9a-f]{64}$/.test(sha!) || !ASSET_TYPES[ext]) {
        ctx.status = 404;
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = 'Not found';
        return;
      }
      const key = `${storeId}:${sha}`;
      let asset = this.assets.get(key);
      if (!asset) {
        const api = apiClientFor(ctx);
        const res = await fetch(`${api.base}/themes/public/stores/${storeId}/assets/${sha}`);
        if (res.status === 404) {
          ctx.status = 404;
          ctx.type = 'text/plain; charset=utf-8';
          ctx.body = 'Not found';
          return;
        }
        if (!res.ok) throw new ApiError(res.status, undefined, 'theme asset');
        // The type the API gives by the stored file's own name, whatever name the URL shows.
        const type = res.headers.get('content-type') ?? '';
        asset = {
          type: Object.values(ASSET_TYPES).includes(type) ? type : 'application/octet-stream',
          body: Buffer.from(await res.arrayBuffer()),
        };
        if (this.assetBytes + asset.body.length > MAX_ASSET_CACHE_BYTES) {
          this.assets.clear();
          this.assetBytes = 0;
        }
        this.assets.set(key, asset);
        this.assetBytes += asset.body.length;
      }
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = asset.type;
      ctx.body = asset.body;
    });
  }
}
