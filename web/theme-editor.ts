/**
 * The console's theme editor under /console/stores/<storeId>/theme (docs/themes.md, "The theme
 * editor"): the store's active theme with its templates and their sections (GET /themes/editor), a
 * form made from the chosen section's `{% schema %}` (colour picker, product, page, collection and
 * category pickers filled from the catalog and the content pages, a repeater of blocks, a WYSIWYG for
 * rich text, plain inputs for the rest), saved with PUT /themes/section-settings, and a preview of
 * the storefront page that uses the template, reloaded after each save. The theme packages are
 * listed with a Publish button for owners and admins (POST /themes/packages/{id}/publish; the API
 * refuses anyone else with 403, which the page shows).
 *
 * Every call is the merchant API with the signed-in user's token, like the other console pages; the
 * routes are added to the console's router, so its same-origin check of form posts, its CSP and its
 * sign-in redirect apply. Without JavaScript the form still saves: blocks are kept, added or removed
 * with checkboxes and ordered with position numbers, and rich text is a textarea of HTML.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import { SECTION_ID, TEMPLATE_NAME } from '../api/themes/section-ids';
import type { EditorSetting } from '../api/themes/theme-editor.service';
import { apiBaseFor, type ApiAnswer, type Json, type Query } from './api-client';
import { STOREFRONT_CSP } from './page-security';

/** What the console lends its pages (web/console.ts): rendering, form reading and the API with the user's token. */
export interface ConsolePages {
  page(ctx: Koa.Context, name: string, title: string, scope?: Record<string, unknown>): Promise<void>;
  form(ctx: Koa.Context): Promise<URLSearchParams>;
  api(ctx: Koa.Context): {
    call<T = Json>(method: string, path: string, options?: { query?: Query; body?: unknown }): Promise<ApiAnswer<T>>;
  };
  problemText(res: ApiAnswer): string;
}

/** A setting as the editor read answers it (api/themes/theme-editor.service.ts). */
type Setting = EditorSetting;

interface Section {
  id: string;
  type: string;
  name: string;
  editable: boolean;
  settings: Setting[];
  values: Record<string, unknown>;
  saved: boolean;
}

interface EditorView {
  theme: string;
  package: { id: string; name: string; version: string } | null;
  templates: Array<{ name: string; sections: Section[] }>;
}

interface Choice {
  value: string;
  label: string;
}

/** The picker types and where their choices come from: the store's catalog and content pages (first 100 of each). */
const PICKERS: Record<string, { path: string; query?: Query; label: (item: Json) => string }> = {
  product: { path: '/catalog/products', label: (p) => `${p.title} (${String(p.status ?? '').toLowerCase()})` },
  page: { path: '/content/pages', query: { limit: 100 }, label: (p) => `${p.title}${p.status === 'PUBLISHED' ? '' : ' (draft)'}` },
  collection: { path: '/catalog/collections', label: (c) => c.name },
  category: { path: '/catalog/categories', label: (c) => c.name },
};

/** The storefront page a template renders, for the preview; templates no page of the shop uses have none. */
const PREVIEW_PATHS: Record<string, string> = { index: '', search: '/search', cart: '/cart', photo: '/photo' };
/** Templates of a page about one thing: previewed with the first of them (a published one where it matters). */
const PREVIEW_ITEMS: Record<string, { picker: string; prefix: string; listed: (item: Json) => boolean }> = {
  product: { picker: 'product', prefix: '/products/', listed: (p) => p.status === 'PUBLISHED' },
  page: { picker: 'page', prefix: '/pages/', listed: (p) => p.status === 'PUBLISHED' },
  collection: { picker: 'collection', prefix: '/collections/', listed: () => true },
  category: { picker: 'category', prefix: '/categories/', listed: () => true },
};
/** What the preview route shows: a storefront path of the store, nothing else. */
const PREVIEW_PATH = /^(?:\/(?:search|cart|photo)|\/(?:products|pages|collections|categories)\/[a-z0-9][a-z0-9-]{0,199})?$/;

/**
 * The preview is the storefront's own page under the console's address, so the editor may frame it
 * (the storefront itself refuses every frame): framed only by this server's pages, and sandboxed
 * (no scripts, no forms), so a theme's scripts and the store's analytics tags never run in it.
 */
const PREVIEW_CSP = `${STOREFRONT_CSP.replace("frame-ancestors 'none'", "frame-ancestors 'self'")}; sandbox`;

/** The storefront renders its own pages under budgets; a preview waiting longer than this gives up. */
const PREVIEW_TIMEOUT_MS = 15_000;
const ROLES_THAT_PUBLISH = new Set(['owner', 'admin']);
/** Form fields of blocks: `r.<setting>.<n>.<field>` (and `_keep`, `_pos`), n at most 3 digits. */
const BLOCK_FIELD = /^r\.([a-z][a-z0-9_]{0,63})\.(\d{1,3})\.(_keep|_pos|[a-z][a-z0-9_]{0,63})$/;

/** `#abc` → `#aabbcc`; an alpha part is dropped (the colour input has none); anything else black. */
function colourInputValue(value: unknown): string {
  const text = typeof value === 'string' ? value.toLowerCase() : '';
  if (/^#[0-9a-f]{6}([0-9a-f]{2})?$/.test(text)) return text.slice(0, 7);
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])[0-9a-f]?$/.exec(text);
  return short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}` : '#000000';
}

/** A form value as the setting's JSON value; `undefined` leaves the setting out (its template value or default applies). */
function settingValue(setting: Setting, raw: string | null): unknown {
  switch (setting.type) {
    case 'checkbox':
      return raw !== null;
    case 'number':
    case 'range': {
      const text = (raw ?? '').trim();
      if (text === '') return undefined;
      const n = Number(text);
      // Not a number: sent as typed, so the API names the problem next to the field.
      return Number.isFinite(n) ? n : text;
    }
    case 'select':
      return raw ? raw : undefined;
    case 'product':
    case 'page':
    case 'collection':
    case 'category':
      return raw ? raw : null;
    case 'color':
      return raw ?? undefined;
    default:
      return raw ?? '';
  }
}

/** The blocks of a repeater as posted: kept ones in position order, each with its fields. */
function repeaterValue(setting: Setting, body: URLSearchParams): Array<Record<string, unknown>> {
  const items = new Map<number, { keep: boolean; pos: number; fields: Map<string, string> }>();
  for (const [key, value] of body) {
    const match = BLOCK_FIELD.exec(key);
    if (!match || match[1] !== setting.id) continue;
    const n = Number(match[2]);
    const item = items.get(n) ?? { keep: false, pos: n, fields: new Map<string, string>() };
    if (match[3] === '_keep') item.keep = true;
    else if (match[3] === '_pos') item.pos = Number.isFinite(Number(value)) && value.trim() !== '' ? Number(value) : n;
    else if (!item.fields.has(match[3]!)) item.fields.set(match[3]!, value);
    items.set(n, item);
  }
  return [...items.entries()]
    .filter(([, item]) => item.keep)
    .sort(([an, a], [bn, b]) => a.pos - b.pos || an - bn)
    .map(([, item]) => {
      const out: Record<string, unknown> = {};
      for (const field of setting.fields ?? []) {
        const value = settingValue(field, item.fields.get(field.id) ?? null);
        if (value !== undefined) out[field.id] = value;
      }
      return out;
    });
}

/** The section's settings from the posted form, every setting of its schema. */
export function settingsFromForm(section: Section, body: URLSearchParams): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const setting of section.settings) {
    const value = setting.type === 'repeater' ? repeaterValue(setting, body) : settingValue(setting, body.get(`s.${setting.id}`));
    if (value !== undefined) settings[setting.id] = value;
  }
  return settings;
}

/** The API's problems by setting id (`body.settings.<id>…`); the rest under ''. */
function fieldErrors(res: ApiAnswer, problemText: (res: ApiAnswer) => string): Record<string, string> {
  const out: Record<string, string> = {};
  const errors = Array.isArray(res.json?.errors) ? (res.json.errors as Array<{ path?: string; message?: string }>) : [];
  for (const e of errors) {
    const id = /^body\.settings\.([a-z][a-z0-9_]*)/.exec(e.path ?? '')?.[1];
    if (id && e.message) out[id] = out[id] ? `${out[id]}; ${e.message}` : e.message;
  }
  if (Object.keys(out).length === 0) out[''] = problemText(res);
  return out;
}

type Row = Record<string, unknown>;

/** One input of the form (a setting, or a field of a block). */
function widget(setting: Setting, name: string, domId: string, value: unknown, choices: Record<string, Choice[]>, error?: string): Row {
  const row: Row = {
    kind: 'input',
    type: setting.type,
    name,
    dom_id: domId,
    label: setting.label,
    info: setting.info,
    error,
    min: setting.min,
    max: setting.max,
    step: setting.step,
  };
  if (setting.type === 'color') row.value = colourInputValue(value);
  else if (setting.type === 'checkbox') row.checked = value === true;
  else if (setting.type === 'select') {
    row.choices = (setting.options ?? []).map((o) => ({ ...o, selected: o.value === value }));
    row.blank = !(setting.options ?? []).some((o) => o.value === value);
  } else if (PICKERS[setting.type]) {
    const list = choices[setting.type] ?? [];
    const current = typeof value === 'string' && value ? value : '';
    // A value no longer among the first choices (or removed from the catalog) stays choosable.
    const all = current && !list.some((c) => c.value === current) ? [{ value: current, label: current }, ...list] : list;
    row.choices = all.map((c) => ({ ...c, selected: c.value === current }));
  } else row.value = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return row;
}

/** The form's rows: one per setting, a repeater opened, its blocks (and one blank block to add), closed. */
function formRows(
  section: Section,
  values: Record<string, unknown>,
  choices: Record<string, Choice[]>,
  errors: Record<string, string>,
): Row[] {
  const rows: Row[] = [];
  for (const setting of section.settings) {
    if (setting.type !== 'repeater') {
      rows.push(widget(setting, `s.${setting.id}`, `setting-${setting.id}`, values[setting.id], choices, errors[setting.id]));
      continue;
    }
    const items = Array.isArray(values[setting.id]) ? (values[setting.id] as Array<Record<string, unknown>>) : [];
    rows.push({
      kind: 'open-repeater',
      id: setting.id,
      label: setting.label,
      info: setting.info,
      error: errors[setting.id],
      max: setting.maxItems,
    });
    [...items, undefined].forEach((item, n) => {
      const prefix = `r.${setting.id}.${n}`;
      rows.push({
        kind: 'open-item',
        repeater: setting.id,
        n,
        number: n + 1,
        prefix,
        blank: item === undefined,
        dom_id: `block-${setting.id}-${n}`,
      });
      for (const field of setting.fields ?? [])
        rows.push(widget(field, `${prefix}.${field.id}`, `block-${setting.id}-${n}-${field.id}`, item?.[field.id], choices));
      rows.push({ kind: 'close-item' });
    });
    rows.push({ kind: 'close-repeater', id: setting.id });
  }
  return rows;
}

export function addThemeEditorRoutes(router: Router, pages: ConsolePages): void {
  const base = (ctx: Koa.Context) => `/console/stores/${ctx.params.storeId}/theme`;

  async function loadChoices(ctx: Koa.Context, types: Set<string>): Promise<Record<string, Choice[]>> {
    const api = pages.api(ctx);
    const out: Record<string, Choice[]> = {};
    // One after the other: a first call may refresh the session, which the next then uses.
    for (const type of types) {
      const picker = PICKERS[type];
      if (!picker) continue;
      const res = await api.call('GET', picker.path, { query: { storeId: ctx.params.storeId, ...picker.query } });
      out[type] =
        res.ok && Array.isArray(res.json?.items) ? res.json.items.map((i: Json) => ({ value: i.slug, label: picker.label(i) })) : [];
    }
    return out;
  }

  /** The storefront path the template renders, or undefined when no page of the shop uses it (or none exists yet). */
  async function previewPath(ctx: Koa.Context, template: string): Promise<string | undefined> {
    if (template in PREVIEW_PATHS) return PREVIEW_PATHS[template];
    const item = PREVIEW_ITEMS[template];
    if (!item) return undefined;
    const picker = PICKERS[item.picker]!;
    const res = await pages.api(ctx).call('GET', picker.path, { query: { storeId: ctx.params.storeId, ...picker.query } });
    const first = res.ok && Array.isArray(res.json?.items) ? (res.json.items as Json[]).find(item.listed) : undefined;
    return first ? `${item.prefix}${first.slug}` : undefined;
  }

  /** The editor page: the templates and sections, the chosen section's form and preview, the packages. */
  async function editorPage(
    ctx: Koa.Context,
    view: EditorView,
    chosen: { template?: string; section?: string },
    posted?: { values: Record<string, unknown>; errors: Record<string, string> },
  ): Promise<void> {
    const api = pages.api(ctx);
    const template = view.templates.find((t) => t.name === chosen.template);
    const section = template?.sections.find((s) => s.id === chosen.section);
    let error = posted?.errors[''];
    if ((chosen.template || chosen.section) && !section) {
      ctx.status = 404;
      error = 'The active theme has no such section; pick one from the list.';
    }
    let form: Row | undefined;
    if (template && section) {
      const types = new Set(section.settings.flatMap((s) => [s.type, ...(s.fields ?? []).map((f) => f.type)]));
      const choices = await loadChoices(ctx, types);
      const preview = await previewPath(ctx, template.name);
      form = {
        template: template.name,
        section: section.id,
        name: section.name,
        type: section.type,
        editable: section.editable && section.settings.length > 0,
        saved: section.saved,
        rows: formRows(section, posted?.values ?? section.values, choices, posted?.errors ?? {}),
        preview_url: preview === undefined ? undefined : `${base(ctx)}/preview?path=${encodeURIComponent(preview)}&v=${Date.now()}`,
        shop_url: preview === undefined ? undefined : `/shop/${ctx.params.storeId}${preview}`,
      };
    }
    const packages = await api.call('GET', '/themes/packages', { query: { storeId: ctx.params.storeId } });
    const account = await api.call('GET', '/auth/account');
    // A member sees Publish only with a role that may publish; a store API key has no account here,
    // and the API decides by its scopes.
    const role = account.ok ? (account.json?.tenant?.role as string | undefined) : undefined;
    await pages.page(ctx, 'theme-editor', 'Theme editor', {
      view,
      chosen_template: template?.name,
      chosen_section: section?.id,
      form,
      error,
      packages: packages.ok ? packages.json.items : [],
      packages_error: packages.ok ? undefined : pages.problemText(packages),
      can_publish: account.ok ? ROLES_THAT_PUBLISH.has(role ?? '') : true,
    });
  }

  async function readView(ctx: Koa.Context): Promise<EditorView | undefined> {
    const res = await pages.api(ctx).call<EditorView>('GET', '/themes/editor', { query: { storeId: ctx.params.storeId } });
    if (res.ok) return res.json;
    ctx.status = [401, 403, 404].includes(res.status) ? res.status : 502;
    await pages.page(ctx, 'message', 'Theme editor', { error: pages.problemText(res) });
    return undefined;
  }

  const queryText = (ctx: Koa.Context, name: string): string => {
    const raw = ctx.query[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    return typeof value === 'string' && value.length <= 200 ? value : '';
  };

  router.get('/stores/:storeId/theme', async (ctx) => {
    const view = await readView(ctx);
    if (!view) return;
    await editorPage(ctx, view, { template: queryText(ctx, 'template') || undefined, section: queryText(ctx, 'section') || undefined });
  });

  router.post('/stores/:storeId/theme/sections', async (ctx) => {
    const body = await pages.form(ctx);
    const template = body.get('template') ?? '';
    const sectionId = body.get('section') ?? '';
    const view = await readView(ctx);
    if (!view) return;
    const section = view.templates.find((t) => t.name === template)?.sections.find((s) => s.id === sectionId);
    if (!TEMPLATE_NAME.test(template) || !SECTION_ID.test(sectionId) || !section)
      return editorPage(ctx, view, { template: template.slice(0, 64), section: sectionId.slice(0, 128) });
    const settings = settingsFromForm(section, body);
    const res = await pages.api(ctx).call('PUT', '/themes/section-settings', {
      body: { storeId: ctx.params.storeId, template, sectionId, settings },
    });
    if (res.ok) {
      const query = new URLSearchParams({ template, section: sectionId, flash: `Saved “${section.name}”; the preview shows it.` });
      return ctx.redirect(`${base(ctx)}?${query.toString()}`);
    }
    ctx.status = [400, 403, 404, 409, 422].includes(res.status) ? res.status : 502;
    await editorPage(ctx, view, { template, section: sectionId }, { values: settings, errors: fieldErrors(res, pages.problemText) });
  });

  router.post('/stores/:storeId/theme/packages/:id/publish', async (ctx) => {
    await pages.form(ctx);
    const res = await pages.api(ctx).call('POST', `/themes/packages/${encodeURIComponent(ctx.params.id!)}/publish`);
    if (res.ok)
      return ctx.redirect(
        `${base(ctx)}?flash=${encodeURIComponent(`Published ${res.json.name} ${res.json.version}: the shop shows it now.`)}`,
      );
    if (res.status === 403) {
      ctx.status = 403;
      return pages.page(ctx, 'message', 'Not allowed', {
        error: `Only owners and admins of the store’s organization publish themes. ${pages.problemText(res)}`,
      });
    }
    ctx.redirect(`${base(ctx)}?error=${encodeURIComponent(pages.problemText(res))}`);
  });

  // The storefront page of a template, fetched from this very server as a shopper sees it (no cookies),
  // answered under the console's address with a CSP that lets only this server's pages frame it.
  router.get('/stores/:storeId/theme/preview', async (ctx) => {
    const path = queryText(ctx, 'path');
    if (!PREVIEW_PATH.test(path)) {
      ctx.status = 404;
      return pages.page(ctx, 'message', 'Preview', { error: 'No storefront page to preview here.' });
    }
    const origin = apiBaseFor(ctx).replace(/\/api\/v1$/, '');
    const res = await fetch(`${origin}/shop/${ctx.params.storeId}${path}`, {
      redirect: 'manual',
      signal: AbortSignal.timeout(PREVIEW_TIMEOUT_MS),
    }).catch(() => undefined);
    if (!res || (res.status >= 300 && res.status < 400)) {
      ctx.status = res ? 404 : 504;
      return pages.page(ctx, 'message', 'Preview', {
        error: res ? 'No storefront page to preview here.' : 'The shop did not answer in time.',
      });
    }
    ctx.status = res.status;
    ctx.set('Content-Security-Policy', PREVIEW_CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = await res.text();
  });
}
