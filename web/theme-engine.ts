/**
 * The theme engine of the storefront: Liquid (liquidjs) over a theme folder laid out in the usual
 * theme folders (layout, templates, sections, snippets, assets). A template is a JSON list of
 * sections; each section is a Liquid file carrying its own settings schema in `{% schema %}` and,
 * optionally, a data loader (web/storefront.ts) that reads the public API.
 *
 * Every section renders under a budget of time, operations and output bytes (docs/storefront.md,
 * "Render budgets"; RENDER_BUDGET_* in lib/config.ts). Operations are the Liquid template nodes rendered (each tag,
 * output and text node, counted on every pass of a loop) plus the section's data calls. A section
 * that exceeds any of the three is left out of the page (an HTML comment marks the spot), the
 * omission is logged, and the rest of the page renders as usual.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  Liquid,
  Tag,
  type Context,
  type Emitter,
  type FS,
  type Liquid as LiquidEngine,
  type TagToken,
  type Template,
  type TopLevelToken,
} from 'liquidjs';
import type { Logger } from 'pino';
import type { RenderBudget, RenderBudgetConfig } from '../lib/config';
import { PROJECT_ROOT } from '../lib/config';
import type { ApiClient, CallMeter } from './api-client';
import { ownUrlResolver } from './own-url';

export const THEME_DIR = path.join(PROJECT_ROOT, 'web', 'theme');

/** HTML the engine vouches for (rendered sections, sanitised rich text): output as is, everything else is escaped. */
export class SafeHtml {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };
function escapeOutput(value: unknown): string {
  if (value instanceof SafeHtml) return value.html;
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * A theme package's text files (layout, templates, sections, snippets) by path, and the URL of each
 * asset: the engine renders them from memory, never from the disk.
 */
export interface PackageSource {
  id: string;
  files: ReadonlyMap<string, string>;
  assetUrl: (name: string) => string | undefined;
}

/**
 * The file system liquidjs sees for a package: only its own files, by name within their folder. A name
 * with a slash, a backslash or a dot segment resolves to nothing, so `{% include '/etc/passwd' %}` or
 * `{% render '../../x' %}` fails like a missing snippet (the section is left out), and nothing is
 * ever read from the disk or the network.
 */
function packageFs(files: ReadonlyMap<string, string>): FS {
  const MISSING = '\0missing';
  const read = (file: string): string => {
    const text = files.get(file);
    if (text === undefined) throw new Error(`no such theme file: ${file.slice(0, 100)}`);
    return text;
  };
  return {
    exists: (file) => Promise.resolve(files.has(file)),
    existsSync: (file) => files.has(file),
    readFile: (file) => Promise.resolve(read(file)),
    readFileSync: read,
    resolve: (dir, file, ext) => {
      if (!/^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(file) || file.includes('..')) return MISSING;
      return `${dir}/${file.endsWith(ext) ? file : file + ext}`;
    },
    contains: (root, file) => Promise.resolve(file.startsWith(`${root}/`) && files.has(file)),
    containsSync: (root, file) => file.startsWith(`${root}/`) && files.has(file),
    sep: '/',
    dirname: (file) => file.slice(0, Math.max(0, file.lastIndexOf('/'))),
  };
}

export class BudgetExceeded extends Error {
  constructor(
    readonly budget: keyof RenderBudget,
    readonly limit: number,
    readonly used: number,
  ) {
    super(`over its ${budget} budget (${used} > ${limit})`);
  }
}

/** A page that does not exist (a loader of the main section decides). */
export class PageNotFound extends Error {}

/** The budget of one section render: counts steps, data calls, time and bytes. */
export class SectionMeter implements CallMeter {
  readonly started = performance.now();
  ops = 0;
  calls = 0;
  constructor(readonly budget: RenderBudget) {}

  elapsed(): number {
    return performance.now() - this.started;
  }

  private checkTime(): void {
    const ms = this.elapsed();
    if (ms > this.budget.ms) throw new BudgetExceeded('ms', this.budget.ms, Math.round(ms));
  }

  private count(n: number): void {
    this.ops += n;
    if (this.ops > this.budget.ops) throw new BudgetExceeded('ops', this.budget.ops, this.ops);
    this.checkTime();
  }

  step(nodes: number, emitter: Emitter | undefined): void {
    this.count(nodes);
    const written = (emitter as { buffer?: unknown } | undefined)?.buffer;
    if (typeof written === 'string' && written.length > this.budget.bytes) {
      // UTF-16 length ≤ UTF-8 bytes only for ASCII; check the exact figure once the cheap one trips.
      const bytes = Buffer.byteLength(written);
      if (bytes > this.budget.bytes) throw new BudgetExceeded('bytes', this.budget.bytes, bytes);
    }
  }

  dataCall(): void {
    this.calls += 1;
    this.count(1);
  }

  finish(html: string): void {
    this.checkTime();
    const bytes = Buffer.byteLength(html);
    if (bytes > this.budget.bytes) throw new BudgetExceeded('bytes', this.budget.bytes, bytes);
  }

  /** Resolves the loader's promise or fails when the section's time runs out first. */
  async within<T>(promise: Promise<T>): Promise<T> {
    const left = this.budget.ms - this.elapsed();
    if (left <= 0) throw new BudgetExceeded('ms', this.budget.ms, Math.round(this.elapsed()));
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        promise,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new BudgetExceeded('ms', this.budget.ms, Math.round(this.elapsed()))), left);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

export interface SettingSchema {
  id: string;
  type: string;
  label: string;
  default?: unknown;
}

export interface SectionSchema {
  name: string;
  settings: SettingSchema[];
}

export interface SectionRef {
  type: string;
  /** The settings of the template, with the store's saved settings over them. */
  settings?: Record<string, unknown>;
}

export interface PageTemplate {
  sections: SectionRef[];
}

/** What every section and the layout see about the request. */
export interface PageContext {
  storeId: string;
  shopBase: string;
  /** Where people reach this service (PUBLIC_BASE_URL), to tell its own URLs from others. */
  publicBaseUrl: string;
  path: string;
  /** The query string, values as arrays. */
  query: Record<string, string[]>;
  /** Scope shared by the sections of one page (set by the page handler). */
  page: Record<string, unknown>;
}

export type SectionLoader = (api: ApiClient, page: PageContext, settings: Record<string, unknown>) => Promise<Record<string, unknown>>;

export interface SectionResult {
  type: string;
  html: string;
  omitted?: string;
}

const SCHEMA_RE = /{%-?\s*schema\s*-?%}([\s\S]*?){%-?\s*endschema\s*-?%}/;

/** `{% schema %}…{% endschema %}`: the section's settings schema; renders nothing. */
class SchemaTag extends Tag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: LiquidEngine) {
    super(token, remainTokens, liquid);
    while (remainTokens.length) {
      const next = remainTokens.shift() as TagToken;
      if (next.name === 'endschema') return;
    }
    throw new Error('{% schema %} is not closed');
  }

  *render(): Generator<unknown, void, unknown> {
    // nothing: the schema is read from the file by the engine
  }
}

export class ThemeEngine {
  readonly liquid: Liquid;
  private readonly sections = new Map<string, { templates: Template[]; schema: SectionSchema }>();
  private readonly layouts = new Map<string, Template[]>();
  private readonly templates = new Map<string, PageTemplate>();

  constructor(
    private readonly budgets: RenderBudgetConfig,
    private readonly logger: Logger,
    private readonly loaders: Record<string, SectionLoader>,
    readonly dir = THEME_DIR,
    /** Where people reach this service (PUBLIC_BASE_URL): its own absolute URLs render as paths (`own_url`). */
    readonly publicBaseUrl = 'http://localhost',
    /** A theme package's files instead of the folder (docs/themes.md, "Sandbox and budgets"). */
    readonly source?: PackageSource,
  ) {
    this.liquid = new Liquid({
      ...(source
        ? { fs: packageFs(source.files), root: ['sections'], partials: ['snippets'], layouts: ['layout'], relativeReference: false }
        : { root: [path.join(dir, 'sections')], partials: path.join(dir, 'snippets') }),
      extname: '.liquid',
      outputEscape: escapeOutput,
      cache: true,
      strictFilters: true,
      jsTruthy: false,
      ownPropertyOnly: true,
    });
    this.liquid.registerTag('schema', SchemaTag);
    this.liquid.registerFilter('money', (value: unknown, currency: unknown) => formatMoney(value, currency));
    this.liquid.registerFilter('json', (value: unknown) => JSON.stringify(value ?? null).replace(/</g, '\\u003c'));
    this.liquid.registerFilter('own_url', ownUrlResolver(publicBaseUrl));
    this.liquid.registerFilter('url_param', (value: unknown) => encodeURIComponent(String(value ?? '')));
    // The built-in theme's assets are served from /assets/theme/; a package's at content-hashed URLs.
    this.liquid.registerFilter('asset_url', (value: unknown) => {
      const name = String(value ?? '');
      if (!/^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(name)) return '';
      return source ? (source.assetUrl(name) ?? '') : `/assets/theme/${name}`;
    });
    const renderer = this.liquid.renderer;
    const original = renderer.renderTemplates.bind(renderer);
    // Every list of template nodes (a section, a loop pass, an if branch, a snippet) passes here.
    renderer.renderTemplates = function* (templates: Template[], ctx: Context, emitter?: Emitter): IterableIterator<unknown> {
      const meter = (ctx.globals as { __meter?: SectionMeter }).__meter;
      meter?.step(templates.length, emitter);
      return yield* original(templates, ctx, emitter);
    };
  }

  /** An engine with the same budgets, loaders and filters over a package's files. */
  forPackage(source: PackageSource): ThemeEngine {
    return new ThemeEngine(this.budgets, this.logger, this.loaders, this.dir, this.publicBaseUrl, source);
  }

  /** A text file of the theme (relative to its root); undefined when it has none. */
  readText(relative: string): string | undefined {
    if (this.source) return this.source.files.get(relative);
    try {
      return fs.readFileSync(path.join(this.dir, relative), 'utf8');
    } catch {
      return undefined;
    }
  }

  private mustRead(relative: string): string {
    const text = this.readText(relative);
    if (text === undefined) throw new Error(`the theme has no ${relative}`);
    return text;
  }

  budgetFor(type: string): RenderBudget {
    return { ...this.budgets.defaults, ...this.budgets.overrides[type] };
  }

  schema(type: string): SectionSchema {
    return this.section(type).schema;
  }

  private section(type: string): { templates: Template[]; schema: SectionSchema } {
    let entry = this.sections.get(type);
    if (!entry) {
      const source = this.mustRead(`sections/${type}.liquid`);
      const match = SCHEMA_RE.exec(source);
      if (!match) throw new Error(`section ${type} has no {% schema %}`);
      const schema = JSON.parse(match[1]!) as SectionSchema;
      entry = { templates: this.liquid.parse(source), schema };
      this.sections.set(type, entry);
    }
    return entry;
  }

  template(name: string): PageTemplate {
    let entry = this.templates.get(name);
    if (!entry) {
      entry = JSON.parse(this.mustRead(`templates/${name}.json`)) as PageTemplate;
      this.templates.set(name, entry);
    }
    return entry;
  }

  private layout(name: string): Template[] {
    let entry = this.layouts.get(name);
    if (!entry) {
      entry = this.liquid.parse(this.mustRead(`layout/${name}.liquid`));
      this.layouts.set(name, entry);
    }
    return entry;
  }

  /** One section under its budget; PageNotFound from a loader propagates, every other failure omits the section. */
  async renderSection(ref: SectionRef, page: PageContext, api: ApiClient): Promise<SectionResult> {
    const meter = new SectionMeter(this.budgetFor(ref.type));
    try {
      const { templates, schema } = this.section(ref.type);
      const settings = richTextAsHtml(schema, { ...defaultsOf(schema), ...ref.settings });
      const loader = this.loaders[ref.type];
      const data = loader ? await meter.within(loader(api.metered(meter), page, settings)) : {};
      const html = (await this.liquid.render(
        templates,
        {
          ...page.page,
          ...data,
          section: { type: ref.type, settings },
          shop: { base: page.shopBase, storeId: page.storeId },
          request: { path: page.path, query: page.query },
        },
        { globals: { __meter: meter } },
      )) as string;
      meter.finish(html);
      return { type: ref.type, html };
    } catch (err) {
      if (err instanceof PageNotFound) throw err;
      const cause = findBudgetError(err);
      if (cause) {
        this.logger.warn(
          { section: ref.type, budget: cause.budget, limit: cause.limit, used: cause.used, path: page.path },
          'storefront section omitted: over its render budget',
        );
        return {
          type: ref.type,
          html: `<!-- section ${ref.type} omitted: over its ${cause.budget} budget -->`,
          omitted: `budget:${cause.budget}`,
        };
      }
      this.logger.warn({ section: ref.type, err, path: page.path }, 'storefront section omitted: it failed');
      return { type: ref.type, html: `<!-- section ${ref.type} omitted: unavailable -->`, omitted: 'error' };
    }
  }

  /** The layout around the sections of a template; header and footer are sections too. */
  async renderPage(
    layout: string,
    sections: SectionRef[],
    page: PageContext,
    api: ApiClient,
    title: string,
  ): Promise<{ html: string; results: SectionResult[] }> {
    const results = await Promise.all(sections.map((ref) => this.renderSection(ref, page, api)));
    const wrap = (r: SectionResult): string =>
      r.omitted ? r.html : `<div class="section section-${r.type}" data-section="${r.type}">${r.html}</div>`;
    const header = results
      .filter((r) => r.type === 'header')
      .map(wrap)
      .join('');
    const footer = results
      .filter((r) => r.type === 'footer')
      .map(wrap)
      .join('');
    const main = results
      .filter((r) => r.type !== 'header' && r.type !== 'footer')
      .map(wrap)
      .join('\n');
    const scope = {
      page_title: title,
      shop: { base: page.shopBase, storeId: page.storeId },
      sections_header: new SafeHtml(header),
      content_for_layout: new SafeHtml(main),
      sections_footer: new SafeHtml(footer),
      page: page.page,
    };
    if (!this.source) return { html: (await this.liquid.render(this.layout(layout), scope)) as string, results };
    // A package's layout renders under the default budget; a layout that fails or runs over leaves a bare page.
    const meter = new SectionMeter(this.budgets.defaults);
    try {
      const html = (await this.liquid.render(this.layout(layout), scope, { globals: { __meter: meter } })) as string;
      meter.finish(html);
      return { html, results };
    } catch (err) {
      this.logger.warn({ err, path: page.path, package: this.source.id }, 'storefront theme layout failed: a bare page was served');
      const bare = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeOutput(title)}</title></head><body>${header}<main id="main">${main}</main>${footer}</body></html>`;
      return { html: bare, results };
    }
  }

  /** A plain Liquid file of the theme (console pages, landing page), no budgets. */
  async renderFile(relative: string, scope: Record<string, unknown>): Promise<string> {
    return (await this.liquid.render(this.parseFile(relative), scope)) as string;
  }

  private readonly files = new Map<string, Template[]>();
  private parseFile(relative: string): Template[] {
    let entry = this.files.get(relative);
    if (!entry) {
      entry = this.liquid.parse(this.mustRead(relative));
      this.files.set(relative, entry);
    }
    return entry;
  }
}

function defaultsOf(schema: SectionSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of schema.settings) out[s.id] = s.default;
  return out;
}

/** Rich text is HTML (sanitised when it was saved, or the theme's own default): it is output as HTML. */
function richTextAsHtml(schema: SectionSchema, settings: Record<string, unknown>): Record<string, unknown> {
  for (const s of schema.settings) {
    const value = settings[s.id];
    if (s.type === 'richtext' && typeof value === 'string') settings[s.id] = new SafeHtml(value);
    const fields = (s as { fields?: SettingSchema[] }).fields;
    if (s.type === 'repeater' && Array.isArray(value) && fields) {
      const rich = fields.filter((f) => f.type === 'richtext').map((f) => f.id);
      settings[s.id] = value.map((item: Record<string, unknown>) => {
        const copy = { ...item };
        for (const id of rich) if (typeof copy[id] === 'string') copy[id] = new SafeHtml(copy[id] as string);
        return copy;
      });
    }
  }
  return settings;
}

function findBudgetError(err: unknown): BudgetExceeded | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 10 && current; depth += 1) {
    if (current instanceof BudgetExceeded) return current;
    current = (current as { originalError?: unknown; cause?: unknown }).originalError ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Decimal amounts as the API gives them, shown with the currency code; never float arithmetic. */
export function formatMoney(value: unknown, currency: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  const text = String(value);
  const [whole, fraction = ''] = text.split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = (fraction + '00').slice(0, Math.max(2, fraction.replace(/0+$/, '').length));
  return `${grouped}.${cents}${currency ? ` ${String(currency)}` : ''}`;
}
